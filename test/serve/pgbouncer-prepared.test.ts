/**
 * resc behind a real PgBouncer 1.21+ in transaction mode that tracks
 * protocol-level prepared statements (`max_prepared_statements`), in
 * `pgbouncer` mode with prepared statements asked for
 * (docs/decisions/1347-pgbouncer-prepared-statements.md):
 *
 * - a concurrent load of reads and every kind of write succeeds over 3
 *   server connections, and PgBouncer's own counters show the statements
 *   were prepared and reused: far fewer parses on the server than binds;
 * - with prepared statements off (`pgbouncer` mode's default) the same
 *   load binds nothing prepared, so the counters tell the two apart;
 * - without `pgbouncer` mode the session settings resc sends at connect
 *   are refused, which is why the flag stays needed with a recent PgBouncer;
 * - `resc serve --pgbouncer --prepared-statements N` serves through it.
 *
 * Skipped, saying so, where no PgBouncer 1.21+ is found (`.ci/run` builds
 * one from Debian 13's source package on Debian 12).
 */
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { rawClient } from "../fuzz/support/http.js";
import { bouncedDatabase, mixedLoad, serveThroughBouncer } from "../support/pgbouncer-load.js";
import { PGBOUNCER_TRACKING } from "../support/pgbouncer.js";

if (!PGBOUNCER_TRACKING) console.warn("pgbouncer-prepared.test.ts skipped: no PgBouncer 1.21+ (see .ci/run)");
const suite = await bouncedDatabase("pgbprep", PGBOUNCER_TRACKING, { maxPreparedStatements: 100 });
const { service } = suite;

/** PgBouncer's totals for the test database: binds of prepared statements, and parses sent to the server. */
async function stats(): Promise<{ binds: number; serverParses: number }> {
  const admin = new URL(suite.bouncer!.through(suite.db!.url!));
  const dbName = admin.pathname.slice(1);
  admin.pathname = "/pgbouncer";
  // The admin console speaks the simple query protocol only: a query without parameters.
  const c = new pg.Client({ connectionString: admin.toString() });
  await c.connect();
  try {
    const r = await c.query<Record<string, string>>("SHOW STATS");
    const row = r.rows.find((x) => x.database === dbName);
    // The wildcard entry gets its row at the database's first connection.
    if (!row) return { binds: 0, serverParses: 0 };
    return { binds: Number(row.total_bind_count), serverParses: Number(row.total_server_parse_count) };
  } finally {
    await c.end();
  }
}

/** An executor in pgbouncer mode through the suite's PgBouncer (10 connections, `options` added), and a client on it. */
function throughBouncer(options: { maxPreparedStatements?: number }): {
  exec: ReturnType<typeof createPgExecutor>;
  client: ReturnType<typeof rawClient>;
} {
  const exec = createPgExecutor({
    connectionString: suite.bouncer!.through(suite.db!.url!),
    max: 10,
    pgbouncer: true,
    ...options,
  });
  return { exec, client: rawClient(service, exec, { logError: () => {} }) };
}

describe.skipIf(!PGBOUNCER_TRACKING || suite.db?.kind !== "pg")("PgBouncer 1.21+ keeping prepared statements", () => {
  it("serves a concurrent load of reads and writes with the statements prepared once and reused", async () => {
    const before = await stats();
    const { client, exec } = throughBouncer({ maxPreparedStatements: 100 });
    try {
      const answers = await Promise.all(mixedLoad().map((r) => client.send(r)));
      expect(
        answers.filter((a) => a.status >= 300).map((a) => a.text),
        "failed requests",
      ).toEqual([]);
      // The reads again on the same client connections: their names are known, only PgBouncer maps them.
      const again = await Promise.all(
        mixedLoad()
          .filter((r) => r.method === "GET")
          .map((r) => client.send(r)),
      );
      expect(again.filter((a) => a.status >= 300)).toEqual([]);
    } finally {
      await exec.close();
    }
    const after = await stats();
    const binds = after.binds - before.binds;
    const parses = after.serverParses - before.serverParses;
    // 160 list statements and 80 writes at least (each turn's reads by id share one statement, decision 1348);
    // a handful of shapes on 3 server connections.
    expect(binds).toBeGreaterThanOrEqual(200);
    expect(parses).toBeGreaterThan(0);
    expect(parses * 5).toBeLessThan(binds);
  });

  it("binds nothing prepared in pgbouncer mode without prepared statements (the mode's default)", async () => {
    const before = await stats();
    const { client, exec } = throughBouncer({});
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => client.send({ method: "GET", path: `/naps/${i + 1}` })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    } finally {
      await exec.close();
    }
    const after = await stats();
    expect(after.binds - before.binds).toBe(0);
  });

  it("refuses resc's session settings without pgbouncer mode: the flag is still needed", async () => {
    const exec = createPgExecutor({ connectionString: suite.bouncer!.through(suite.db!.url!), max: 1 });
    try {
      await expect(exec.query({ text: "SELECT 1", values: [] })).rejects.toThrow(/unsupported startup parameter/);
    } finally {
      await exec.close();
    }
  });

  it("is what resc serve --pgbouncer --prepared-statements selects", async () => {
    const before = await stats();
    expect(await serveThroughBouncer(suite, ["--pgbouncer", "--prepared-statements", "100"])).toEqual(
      Array(30).fill(200),
    );
    const after = await stats();
    expect(after.binds - before.binds).toBeGreaterThanOrEqual(30);
  });
});
