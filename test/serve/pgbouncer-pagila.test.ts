/**
 * The Pagila suites (reads, writes, keyset paging, expansion) run again
 * with every service executor going through a real PgBouncer in
 * transaction mode, in `pgbouncer` mode (docs/decisions/1301-pgbouncer.md): a nested vitest run
 * with `RESC_TEST_PGBOUNCER=1`, whose global setup starts PgBouncer
 * (test/support/global-db.ts). Skipped, saying so, without pgbouncer.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { knownServer } from "../support/db.js";
import { PGBOUNCER } from "../support/pgbouncer.js";
import { run } from "../support/run.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await knownServer();
if (!PGBOUNCER) console.warn("pgbouncer-pagila.test.ts skipped: pgbouncer is not installed");

describe.skipIf(!PGBOUNCER || !server)("the Pagila suites through PgBouncer", () => {
  it("pass with the executors in pgbouncer mode", async () => {
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
          RESC_TEST_PGBOUNCER: "1",
          RESC_TEST_RUN_ID: `pgb${Date.now().toString(36)}`,
          NO_COLOR: "1",
          FORCE_COLOR: "0",
        },
      },
    );
    expect(r.code, r.stdout.slice(-3000) + r.stderr.slice(-2000)).toBe(0);
    const plain = r.stdout.replace(/\u001b\[[0-9;]*m/g, "");
    expect(plain).toMatch(/Tests +[1-9]\d* passed/);
    expect(plain).not.toMatch(/failed/);
  }, 420_000);
});
