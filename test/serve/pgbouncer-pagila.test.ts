/**
 * The Pagila suites (reads, writes, keyset paging, expansion) run again
 * with every service executor going through a real PgBouncer in
 * transaction mode, in `pgbouncer` mode (docs/decisions/1301-pgbouncer.md): a nested vitest run
 * with `RESC_TEST_PGBOUNCER=1`, whose global setup starts PgBouncer
 * (test/support/global-db.ts); and once more through a PgBouncer 1.21+
 * keeping prepared statements, with the executors preparing theirs
 * (`RESC_TEST_PGBOUNCER=prepared`, decision 1347). Each is skipped, saying
 * so, without its PgBouncer.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { knownServer } from "../support/db.js";
import { PGBOUNCER, PGBOUNCER_TRACKING } from "../support/pgbouncer.js";
import { run } from "../support/run.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await knownServer();
if (!PGBOUNCER) console.warn("pgbouncer-pagila.test.ts: pgbouncer is not installed, its first run is skipped");
if (!PGBOUNCER_TRACKING) console.warn("pgbouncer-pagila.test.ts: no PgBouncer 1.21+, its prepared run is skipped");

/** Runs the Pagila suites in a nested vitest with `RESC_TEST_PGBOUNCER=mode` and checks that they all passed. */
async function pagilaThrough(mode: "1" | "prepared"): Promise<void> {
  const r = await run(
    process.execPath,
    [
      path.resolve("node_modules/vitest/vitest.mjs"),
      "run",
      "test/pagila",
      "test/keyset/pagila.test.ts",
      "test/expansion/pagila.test.ts",
    ],
    // A run id of its own: the nested run's teardown drops only its own databases.
    {
      timeout: 400_000,
      env: {
        RESC_TEST_PGBOUNCER: mode,
        RESC_TEST_RUN_ID: `pgb${mode === "1" ? "" : "p"}${Date.now().toString(36)}`,
        NO_COLOR: "1",
        FORCE_COLOR: "0",
      },
    },
  );
  expect(r.code, r.stdout.slice(-3000) + r.stderr.slice(-2000)).toBe(0);
  const plain = r.stdout.replace(/\u001b\[[0-9;]*m/g, "");
  expect(plain).toMatch(/Tests +[1-9]\d* passed/);
  expect(plain).not.toMatch(/failed/);
}

describe.skipIf(!server)("the Pagila suites through PgBouncer", () => {
  it.skipIf(!PGBOUNCER)("pass with the executors in pgbouncer mode", () => pagilaThrough("1"), 420_000);

  it.skipIf(!PGBOUNCER_TRACKING)(
    "pass through PgBouncer 1.21+ with the executors preparing their statements",
    () => pagilaThrough("prepared"),
    420_000,
  );
});
