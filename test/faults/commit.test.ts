/**
 * A write whose COMMIT loses its connection may have committed
 * (docs/decisions/1331-commit-outcome-unknown.md): the proxy lets the
 * client's COMMIT reach PostgreSQL, which commits, and cuts the link before
 * the answer gets back. The answer is then `/problems/outcome-unknown`
 * (500, no Retry-After), never the 503 "try again" a failure before the
 * write gets, because the row is in fact stored and a blind retry would
 * store it twice; with an `Idempotency-Key`, the retry learns that it was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile } from "../support/service.js";
import { rawClient } from "../fuzz/support/http.js";
import { startPgFaultProxy, type PgFaultProxy } from "./support/pg-proxy.js";
import { IDEMPOTENCY_TABLE_DDL } from "../../runtime/idempotency-store.js";

const db: TestDatabase = await createTestDatabase("commit");
let proxy: PgFaultProxy;
let service: ServiceDescriptor;
const executors: PgExecutor[] = [];

beforeAll(async () => {
  if (db.kind !== "pg") return;
  const compiled = await compileFile("test/faults/fixtures/faults.resource");
  service = compiled.service;
  await db.executor.script(compiled.ddl);
  const target = new URL(db.url!);
  proxy = await startPgFaultProxy(target.hostname, Number(target.port || 5432));
});

afterAll(async () => {
  await Promise.all(executors.map((e) => e.close().catch(() => {})));
  await proxy?.close();
  await db.drop();
});

function throughProxy(): PgExecutor {
  const u = new URL(db.url!);
  u.hostname = "127.0.0.1";
  u.port = String(proxy.port);
  const exec = createPgExecutor({ connectionString: u.toString(), max: 2, connectionTimeoutMillis: 1000 });
  executors.push(exec);
  return exec;
}

async function stored(name: string): Promise<number> {
  const r = await db.executor.query({ text: "SELECT count(*)::text AS n FROM naps WHERE name = $1", values: [name] });
  return Number(r.rows[0]!.n);
}

describe.skipIf(db.kind !== "pg")("a COMMIT whose answer never comes back", () => {
  it("is answered outcome-unknown (500, no Retry-After), and the row was in fact stored", async () => {
    const client = rawClient(service, throughProxy(), { logError: () => {} });
    const before = proxy.injected;
    proxy.arm("commit", "");
    const ans = await client.send({ method: "POST", path: "/naps", body: JSON.stringify({ name: "lost answer" }) });
    expect(proxy.injected - before, "the link was cut after COMMIT").toBe(1);
    expect(ans.status, ans.text).toBe(500);
    expect(ans.json).toMatchObject({ type: "/problems/outcome-unknown", status: 500 });
    expect(ans.headers.get("retry-after")).toBeNull();
    expect(await stored("lost answer")).toBe(1);
    // The pool dropped the broken connection: the next write is served.
    const next = await client.send({ method: "POST", path: "/naps", body: JSON.stringify({ name: "after" }) });
    expect(next.status, next.text).toBe(201);
  });

  it("with an Idempotency-Key, the retry learns the stored outcome: the first answer again, one row (docs/decisions/1335-idempotency-keys.md)", async () => {
    await db.executor.query({ text: IDEMPOTENCY_TABLE_DDL, values: [] });
    const client = rawClient(service, throughProxy(), { logError: () => {} });
    const send = () =>
      client.app.request("/naps", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": "commit-lost-1" },
        body: JSON.stringify({ name: "keyed lost answer" }),
      });
    const before = proxy.injected;
    proxy.arm("commit", "");
    const lost = await send();
    expect(proxy.injected - before, "the link was cut after COMMIT").toBe(1);
    expect(lost.status).toBe(500);
    expect(await lost.json()).toMatchObject({ type: "/problems/outcome-unknown" });
    const retried = await send();
    expect(retried.status, await retried.clone().text()).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await stored("keyed lost answer")).toBe(1);
  });

  it("while a failure before the COMMIT is a 503 to retry, and nothing was stored", async () => {
    const client = rawClient(service, throughProxy(), { logError: () => {} });
    proxy.arm("in-transaction", "57P01");
    const ans = await client.send({ method: "POST", path: "/naps", body: JSON.stringify({ name: "never stored" }) });
    expect(ans.status, ans.text).toBe(503);
    expect(Number(ans.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await stored("never stored")).toBe(0);
  });
});
