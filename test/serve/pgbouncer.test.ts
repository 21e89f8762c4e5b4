/**
 * resc behind a real PgBouncer in transaction mode with a pool of 3 server
 * connections (docs/decisions/1301-pgbouncer.md):
 *
 * - with `pgbouncer: true`, a concurrent load of reads and every kind of
 *   write succeeds: no "prepared statement … does not exist / already
 *   exists", each write in its transaction, and an AfterCommit hook, which
 *   reads on another connection, sees the committed row;
 * - with prepared statements on (the default), the same load fails, which
 *   is why the mode exists;
 * - `resc serve --pgbouncer` serves through it.
 *
 * Skipped, saying so, where Debian's pgbouncer package is not installed
 * (`.ci/run` installs it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import type { Hooks } from "../../runtime/hooks.js";
import { rawClient, type RawRequest } from "../fuzz/support/http.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { PGBOUNCER, startPgBouncer, type TestBouncer } from "../support/pgbouncer.js";
import { startServe } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
if (!PGBOUNCER) console.warn("pgbouncer.test.ts skipped: pgbouncer is not installed (apt-get install pgbouncer)");
const db: TestDatabase | undefined = PGBOUNCER ? await createTestDatabase("pgbouncer") : undefined;
let bouncer: TestBouncer | undefined;
const { service, ddl } = await compileFile(FILE);

beforeAll(async () => {
  if (!db || db.kind !== "pg") return;
  await db.executor.script(ddl + "\nINSERT INTO naps (name) SELECT 'n' || g FROM generate_series(1, 50) g;");
  bouncer = await startPgBouncer(db.url!, 3);
}, 60_000);

afterAll(async () => {
  await bouncer?.stop();
  await db?.drop();
});

/** Reads of many shapes and writes of every kind, 40 at a time. */
function load(): RawRequest[] {
  const out: RawRequest[] = [];
  for (let i = 1; i <= 40; i++) {
    out.push(
      { method: "GET", path: `/naps?name=eq.n${i}` },
      { method: "GET", path: `/naps/${i}` },
      { method: "GET", path: `/naps?sort=-id&per_page=${(i % 5) + 1}` },
    );
    out.push({ method: "POST", path: "/pins", body: JSON.stringify({ label: `p${i}` }) });
    out.push({ method: "PATCH", path: `/naps/${i}`, body: JSON.stringify({ name: `m${i}` }) });
  }
  return out;
}

describe.skipIf(!PGBOUNCER || db?.kind !== "pg")("PgBouncer in transaction mode", () => {
  it("serves a concurrent load of reads and writes in pgbouncer mode, AfterCommit after the commit", async () => {
    const exec = createPgExecutor({ connectionString: bouncer!.through(db!.url!), max: 10, pgbouncer: true });
    const seen: boolean[] = [];
    const hooks: Hooks = {
      afterCommit: {
        pins: async (ctx, event) => {
          // Another connection: it sees the row only if the write has committed.
          const r = await ctx.db!.query({
            text: "SELECT count(*)::text AS n FROM pins WHERE id = $1::bigint",
            values: [String(event.key)],
          });
          seen.push(r.rows[0]!.n === "1");
        },
      },
    };
    const client = rawClient(service, exec, { hooks, logError: () => {} });
    try {
      const answers = await Promise.all(load().map((r) => client.send(r)));
      const failed = answers.filter((a) => a.status >= 300);
      expect(
        failed.map((a) => a.text),
        "failed requests",
      ).toEqual([]);
      expect(seen).toHaveLength(40);
      expect(seen.every(Boolean)).toBe(true);
      const deleted = await Promise.all(
        Array.from({ length: 10 }, (_, i) => client.send({ method: "DELETE", path: `/pins/${i + 1}` })),
      );
      expect(deleted.map((a) => a.status)).toEqual(Array(10).fill(204));
    } finally {
      await exec.close();
    }
  });

  it("fails the same load with prepared statements on: why the mode exists", async () => {
    // lock_timeout off too, so the failures are the prepared statements' alone.
    const exec = createPgExecutor({
      connectionString: bouncer!.through(db!.url!),
      max: 10,
      lockTimeoutMillis: 0,
      statementTimeoutMillis: 0,
    });
    const client = rawClient(service, exec, { logError: () => {} });
    try {
      const answers = await Promise.all(load().map((r) => client.send(r)));
      expect(answers.filter((a) => a.status >= 500).length).toBeGreaterThan(0);
    } finally {
      await exec.close();
    }
  });

  it("is what resc serve --pgbouncer selects", async () => {
    const node = await startServe(FILE, ["--database-url", bouncer!.through(db!.url!), "--pgbouncer"]);
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          fetch(`${node.base}/naps?name=eq.n${i + 1}&per_page=${(i % 4) + 1}`).then((r) => r.status),
        ),
      );
      expect(answers).toEqual(Array(30).fill(200));
    } finally {
      await node.stop();
    }
  });
});
