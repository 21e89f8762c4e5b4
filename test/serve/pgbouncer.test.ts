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
import { describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import type { Hooks } from "../../runtime/hooks.js";
import { rawClient } from "../fuzz/support/http.js";
import { bouncedDatabase, mixedLoad, serveThroughBouncer } from "../support/pgbouncer-load.js";
import { PGBOUNCER } from "../support/pgbouncer.js";

if (!PGBOUNCER) console.warn("pgbouncer.test.ts skipped: pgbouncer is not installed (apt-get install pgbouncer)");
const suite = await bouncedDatabase("pgbouncer", PGBOUNCER);
const { service } = suite;

describe.skipIf(!PGBOUNCER || suite.db?.kind !== "pg")("PgBouncer in transaction mode", () => {
  it("serves a concurrent load of reads and writes in pgbouncer mode, AfterCommit after the commit", async () => {
    const exec = createPgExecutor({
      connectionString: suite.bouncer!.through(suite.db!.url!),
      max: 10,
      pgbouncer: true,
    });
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
      const answers = await Promise.all(mixedLoad().map((r) => client.send(r)));
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
      connectionString: suite.bouncer!.through(suite.db!.url!),
      max: 10,
      lockTimeoutMillis: 0,
      statementTimeoutMillis: 0,
    });
    const client = rawClient(service, exec, { logError: () => {} });
    try {
      const answers = await Promise.all(mixedLoad().map((r) => client.send(r)));
      expect(answers.filter((a) => a.status >= 500).length).toBeGreaterThan(0);
    } finally {
      await exec.close();
    }
  });

  it("is what resc serve --pgbouncer selects", async () => {
    expect(await serveThroughBouncer(suite, ["--pgbouncer"])).toEqual(Array(30).fill(200));
  });
});
