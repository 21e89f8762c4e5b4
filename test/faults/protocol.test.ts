/**
 * Database errors spoken in the wire protocol (docs/decisions/0910-connection-faults.md): a proxy
 * injects a FATAL ErrorResponse (57P01, 57P02, 08006) at start-up, right
 * after ReadyForQuery, in the middle of a statement and in the middle of a
 * transaction, for reads and every kind of write. The process must stay up
 * (no `'error'` event without a listener), the request gets a 503 problem
 * document with `Retry-After`, and the next request is served.
 *
 * Also: a server refusing new connections with `too many clients` (53300)
 * while the pool holds working ones makes requests wait for those, not
 * fail at once; and the 503 says which of "database down" and "no
 * connection slot" it was (docs/decisions/0910-connection-faults.md).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile } from "../support/service.js";
import { rawClient, type RawAnswer, type RawRequest } from "../fuzz/support/http.js";
import { startPgFaultProxy, type InjectionPoint, type PgFaultProxy } from "./support/pg-proxy.js";

const db: TestDatabase = await createTestDatabase("protocol");
let proxy: PgFaultProxy;
let service: ServiceDescriptor;
const executors: PgExecutor[] = [];
/** Exceptions nothing handled while this file ran: a pg client's `'error'` event without listener lands here. */
const uncaught: unknown[] = [];
const onUncaught = (e: unknown): void => {
  uncaught.push(e);
};

beforeAll(async () => {
  if (db.kind !== "pg") return;
  process.on("uncaughtException", onUncaught);
  const compiled = await compileFile("test/faults/fixtures/faults.resource");
  service = compiled.service;
  await db.executor.script(compiled.ddl + "\nINSERT INTO naps (name) VALUES ('first');");
  const target = new URL(db.url!);
  proxy = await startPgFaultProxy(target.hostname, Number(target.port || 5432));
});

afterEach(() => {
  proxy?.disarm();
  const escaped = uncaught.splice(0);
  expect(escaped, "an error escaped as an uncaught exception").toEqual([]);
});

afterAll(async () => {
  process.off("uncaughtException", onUncaught);
  await Promise.all(executors.map((e) => e.close().catch(() => {})));
  await proxy?.close();
  await db.drop();
});

/** A fresh executor through the proxy, so the first request opens a new connection. */
function freshExecutor(options: { max?: number; connectionTimeoutMillis?: number } = {}): PgExecutor {
  const u = new URL(db.url!);
  u.hostname = "127.0.0.1";
  u.port = String(proxy.port);
  const exec = createPgExecutor({
    connectionString: u.toString(),
    max: options.max ?? 2,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 1000,
  });
  executors.push(exec);
  return exec;
}

/** A 503 problem document with `Retry-After` and nothing of the driver's text. */
function expect503(ans: RawAnswer, kind?: string): void {
  expect(ans.status, ans.text).toBe(503);
  expect(ans.headers.get("content-type")).toContain("application/problem+json");
  expect(Number(ans.headers.get("retry-after"))).toBeGreaterThanOrEqual(0);
  expect(ans.text).not.toMatch(/administrator|crash|terminat|57P0|08006|too many clients/i);
  if (kind) expect((ans.json as { type: string }).type).toBe(`/problems/${kind}`);
}

type Op = { name: string; request: () => Promise<RawRequest>; ok: number; write: boolean };

/** A row made directly in the database, for the update and delete requests to act on. */
async function freshRow(): Promise<string> {
  const r = await db.executor.query({
    text: "INSERT INTO naps (name) VALUES ('row') RETURNING id::text AS id",
    values: [],
  });
  return r.rows[0].id!;
}

const ops: Op[] = [
  { name: "list", request: async () => ({ method: "GET", path: "/naps?name=eq.first" }), ok: 200, write: false },
  { name: "read", request: async () => ({ method: "GET", path: "/naps/1" }), ok: 200, write: false },
  {
    name: "create",
    request: async () => ({ method: "POST", path: "/naps", body: JSON.stringify({ name: "new" }) }),
    ok: 201,
    write: true,
  },
  {
    name: "update",
    request: async () => ({ method: "PATCH", path: `/naps/${await freshRow()}`, body: JSON.stringify({ name: "x" }) }),
    ok: 200,
    write: true,
  },
  {
    name: "delete",
    request: async () => ({ method: "DELETE", path: `/naps/${await freshRow()}` }),
    ok: 204,
    write: true,
  },
];

const codes = ["57P01", "57P02", "08006"];
const points: InjectionPoint[] = ["startup", "after-ready", "mid-query", "in-transaction"];
const cases = codes.flatMap((code) =>
  points.flatMap((point) =>
    ops.filter((op) => point !== "in-transaction" || op.write).map((op) => ({ code, point, op })),
  ),
);

describe.skipIf(db.kind !== "pg")("an ErrorResponse injected by the server side", () => {
  it.each(cases)(
    "$code at $point of a $op.name: 503, the process lives, the next request is served",
    async ({ code, point, op }) => {
      const client = rawClient(service, freshExecutor(), { logError: () => {} });
      const before = proxy.injected;
      proxy.arm(point, code);
      const failed = await client.send(await op.request());
      expect(proxy.injected - before, "the fault was injected").toBe(1);
      expect503(failed, "database-unavailable");
      // Let the socket close reach the client, so a late 'error' event would be seen by this test.
      await new Promise((r) => setTimeout(r, 20));
      const next = await client.send(await op.request());
      expect(next.status, next.text).toBe(op.ok);
    },
  );
});

describe.skipIf(db.kind !== "pg")("a server with no connection slot left (53300)", () => {
  it("makes requests wait for the connections the pool already holds", async () => {
    const exec = freshExecutor({ max: 4, connectionTimeoutMillis: 4000 });
    const client = rawClient(service, exec, { logError: () => {}, resourceConcurrency: false });
    // Two working connections, then every new one is refused.
    const held = await Promise.all([exec.pool.connect(), exec.pool.connect()]);
    for (const c of held) c.release();
    expect(exec.pool.totalCount).toBe(2);
    proxy.arm("startup", "53300", 1000);
    const nap: RawRequest = { method: "GET", path: "/naps?name=eq.0.2&select=id,nap" };
    await db.executor.query({ text: "INSERT INTO naps (name) VALUES ('0.2')", values: [] });
    const answers = await Promise.all(Array.from({ length: 6 }, () => client.send(nap)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(proxy.injected).toBeGreaterThan(0);
  });

  it("answers 503 database-busy when no connection comes free, and database-unavailable when the server is gone", async () => {
    const client = rawClient(service, freshExecutor({ max: 2, connectionTimeoutMillis: 600 }), { logError: () => {} });
    proxy.arm("startup", "53300", 1000);
    const busy = await client.send({ method: "GET", path: "/naps" });
    expect503(busy, "database-busy");
    expect((busy.json as { detail: string }).detail).toMatch(/no free connection/);
    proxy.disarm();

    const down = createPgExecutor({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
      connectionTimeoutMillis: 600,
    });
    executors.push(down);
    const gone = await rawClient(service, down, { logError: () => {} }).send({ method: "GET", path: "/naps" });
    expect503(gone, "database-unavailable");
    expect((gone.json as { detail: string }).detail).toMatch(/not reachable/);
  });
});
