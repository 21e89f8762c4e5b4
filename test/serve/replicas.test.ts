/**
 * Read replicas (docs/decisions/1302-read-replicas.md): a
 * primary and a streaming replica of the test's own (`initdb`, then
 * `pg_basebackup -R`, each started with `pg_ctl` on a free port):
 *
 * - list and read requests run on the replica (`pg_is_in_recovery()` says
 *   so), writes and the row they return on the primary, visible there at once;
 * - a cursor issued from the replica continues on the primary;
 * - with the replica stopped, reads fall back to the primary with no failed
 *   request, and `resc serve`'s `/ready` names the replica that is down.
 *
 * Skipped, saying so, where PostgreSQL's server binaries are missing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createReplicaRouter, type ReplicaRouter } from "../../runtime/exec/replicas.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { rawClient } from "../fuzz/support/http.js";
import { postgresBinDir, startCluster, type TestCluster } from "../support/cluster.js";
import { startServe } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
const binaries = postgresBinDir();
if (!binaries) console.warn("replicas.test.ts skipped: initdb/pg_ctl/pg_basebackup not found (set PG_BINDIR)");

let primary: TestCluster | undefined;
let replica: TestCluster | undefined;
let primaryDb: PgExecutor;
let replicaDb: PgExecutor;
let router: ReplicaRouter;
/** Statements that ran on the replica, as seen through a counting wrapper. */
let onReplica = 0;

async function waitForReplay(): Promise<void> {
  const p = new pg.Client({ connectionString: primary!.url("resc") });
  await p.connect();
  const lsn = (await p.query<{ l: string }>("SELECT pg_current_wal_lsn()::text AS l")).rows[0]!.l;
  await p.end();
  const r = new pg.Client({ connectionString: replica!.url("resc") });
  await r.connect();
  try {
    for (let i = 0; i < 200; i++) {
      const done = await r.query<{ ok: boolean }>("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok", [lsn]);
      if (done.rows[0]!.ok) return;
      await new Promise((res) => setTimeout(res, 50));
    }
    throw new Error("the replica did not catch up");
  } finally {
    await r.end();
  }
}

beforeAll(async () => {
  if (!binaries) return;
  primary = await startCluster();
  const admin = new pg.Client({ connectionString: primary.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE resc");
  await admin.end();
  const { ddl } = await compileFile(FILE);
  const setup = new pg.Client({ connectionString: primary.url("resc") });
  await setup.connect();
  await setup.query(ddl + "\nINSERT INTO naps (name) SELECT 'n' || g FROM generate_series(1, 5) g;");
  await setup.end();
  replica = await startCluster({ replicaOf: primary });
  primaryDb = createPgExecutor({ connectionString: primary.url("resc"), max: 3 });
  replicaDb = createPgExecutor({ connectionString: replica.url("resc"), max: 3, connectionTimeoutMillis: 1000 });
  const counting: Executor = {
    ...replicaDb,
    query: (stmt) => {
      onReplica++;
      return replicaDb.query(stmt);
    },
    close: () => replicaDb.close(),
  };
  router = createReplicaRouter([{ name: `127.0.0.1:${replica.port}`, db: counting }], primaryDb);
  await waitForReplay();
}, 120_000);

afterAll(async () => {
  await router?.close().catch(() => {});
  await primaryDb?.close().catch(() => {});
  await replica?.destroy();
  await primary?.destroy();
});

describe.skipIf(!binaries)("read replicas", () => {
  it("reads on the replica, writes on the primary, visible there at once", async () => {
    const { service } = await compileFile(FILE);
    const client = rawClient(service, primaryDb, { readDb: router, logError: () => {} });
    const recovery = await router.query({ text: "SELECT pg_is_in_recovery()::text AS r", values: [] });
    expect(recovery.rows[0]!.r).toBe("true");
    const before = onReplica;
    const list = await client.send({ method: "GET", path: "/naps?sort=id" });
    expect(list.status).toBe(200);
    expect((await client.send({ method: "GET", path: "/naps/1" })).status).toBe(200);
    expect(onReplica - before).toBe(2);
    const written = await client.send({ method: "POST", path: "/naps", body: JSON.stringify({ name: "fresh" }) });
    expect(written.status).toBe(201);
    expect(onReplica - before, "the write and its returned row stayed on the primary").toBe(2);
    const seen = await primaryDb.query({
      text: "SELECT count(*)::text AS n FROM naps WHERE name = 'fresh'",
      values: [],
    });
    expect(seen.rows[0]!.n).toBe("1");
  });

  it("continues on the primary a cursor issued from the replica, and survives the replica stopping", async () => {
    await waitForReplay();
    const { service } = await compileFile(FILE);
    const client = rawClient(service, primaryDb, { readDb: router, logError: () => {} });
    const first = await client.send({ method: "GET", path: "/naps?sort=id&per_page=2" });
    const cursor = (first.json as { next_cursor: string }).next_cursor;
    await replica!.stop("immediate");
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => client.send({ method: "GET", path: "/naps?sort=id" })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const next = await client.send({
      method: "GET",
      path: `/naps?sort=id&per_page=2&cursor=${encodeURIComponent(cursor)}`,
    });
    expect(next.status).toBe(200);
    expect((next.json as { items: { id: number }[] }).items.map((i) => i.id)).toEqual([3, 4]);
    expect(router.replicas()).toEqual([expect.objectContaining({ up: false })]);
  });

  it("resc serve --read-database-url names the replica that is down in /ready", async () => {
    const node = await startServe(FILE, [
      "--database-url",
      primary!.url("resc"),
      "--read-database-url",
      replica!.url("resc"),
    ]);
    try {
      expect((await fetch(`${node.base}/naps`)).status).toBe(200);
      const ready = await fetch(`${node.base}/ready`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { replicas: { name: string; up: boolean }[] };
      expect(body.replicas).toEqual([expect.objectContaining({ name: `127.0.0.1:${replica!.port}`, up: false })]);
    } finally {
      await node.stop();
    }
  });
});
