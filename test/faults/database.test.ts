/**
 * Database faults (docs/http.md: database unreachable 503,
 * statement timeout 504; docs/decisions/0900-database-timeouts.md). The
 * service talks to PostgreSQL through a TCP proxy this file controls, so an
 * outage is staged without touching the shared server:
 *
 * - the port closed, or the server gone mid-query: 503 at once;
 * - a network that swallows packets: 503 once the pool's connection
 *   timeout (new connections) or the client-side query timeout (open ones)
 *   runs out, never a hang (a write within one query timeout: the cut
 *   connection fails its ROLLBACK at once, docs/decisions/1344-round-trip-watchdog.md);
 * - a pool whose every connection is busy: 503 after the connection
 *   timeout, not an endless queue;
 * - a slow statement: cut by the server's statement timeout, 504;
 * - after each fault the same process serves again, without a restart.
 *
 * Elapsed times are checked against the configured timeouts with wide
 * margins: the point is that each answer is bounded by a setting, not how
 * fast it comes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile } from "../support/service.js";
import { rawClient, type RawAnswer, type RawRequest } from "../fuzz/support/http.js";
import { startProxy, type TcpProxy } from "./support/proxy.js";

/** The timeouts under test, small so the file runs in seconds. */
const CONNECT_MS = 700;
const STATEMENT_MS = 1500;
const QUERY_MS = 2500;
/** Slack allowed on top of a timeout before an answer counts as a hang. */
const SLACK_MS = 2500;

const db: TestDatabase = await createTestDatabase("faults");
let proxy: TcpProxy;
let exec: PgExecutor;
let service: ServiceDescriptor;
let client: ReturnType<typeof rawClient>;

beforeAll(async () => {
  if (db.kind !== "pg") return;
  const compiled = await compileFile("test/faults/fixtures/faults.resource");
  service = compiled.service;
  const ddl = compiled.ddl;
  await db.executor.script(ddl + "\nINSERT INTO naps (name) VALUES ('first'), ('0.8'), ('1.2'), ('30');");
  const target = new URL(db.url!);
  proxy = await startProxy(target.hostname, Number(target.port || 5432));
  exec = createPgExecutor({
    connectionString: proxiedUrl(),
    max: 3,
    connectionTimeoutMillis: CONNECT_MS,
    statementTimeoutMillis: STATEMENT_MS,
    queryTimeoutMillis: QUERY_MS,
  });
  // The pool's own limits are under test here, not the per-resource share of it.
  client = rawClient(service, exec, { resourceConcurrency: false });
});

afterAll(async () => {
  await exec?.close().catch(() => {});
  await proxy?.close();
  await db.drop();
});

/** The test database's URL, pointed at the proxy. */
function proxiedUrl(): string {
  const u = new URL(db.url!);
  u.hostname = "127.0.0.1";
  u.port = String(proxy.port);
  return u.toString();
}

/** Sends `req` and measures how long the answer took, in milliseconds. */
async function timed(req: RawRequest): Promise<{ ans: RawAnswer; ms: number }> {
  const start = performance.now();
  const ans = await client.send(req);
  return { ans, ms: performance.now() - start };
}

/** A 503 or 504 problem document that says nothing about the database's internals. */
function expectFault(ans: RawAnswer, status: 503 | 504): void {
  expect(ans.status, ans.text).toBe(status);
  expect(ans.headers.get("content-type")).toContain("application/problem+json");
  expect(ans.json).toMatchObject({
    status,
    title: status === 503 ? "Service Unavailable" : "Gateway Timeout",
    errors: [],
  });
  expect((ans.json as { type: string }).type).toMatch(/^\/problems\//);
  expect(ans.text).not.toMatch(
    /ECONN|127\.0\.0\.1|timeout expired|read timeout|terminated|canceling|statement_timeout|SELECT|naps_pkey/i,
  );
  client.logged.splice(0);
}

const read = (path = "/naps?name=eq.first"): RawRequest => ({ method: "GET", path });
const writes: RawRequest[] = [
  { method: "POST", path: "/naps", body: JSON.stringify({ name: "new" }) },
  { method: "PATCH", path: "/naps/1", body: JSON.stringify({ name: "first" }) },
  { method: "DELETE", path: "/naps/999" },
];

async function expectServing(): Promise<void> {
  const { ans } = await timed(read());
  expect(ans.status, ans.text).toBe(200);
  expect((ans.json as { items: unknown[] }).items).toHaveLength(1);
}

describe.skipIf(db.kind !== "pg")("database faults through a proxy", () => {
  it("serves through the proxy", async () => {
    await expectServing();
  });

  it("answers 503 at once while the port is closed, reads and writes alike, then serves again", async () => {
    await expectServing();
    await proxy.set("down");
    for (const req of [read(), read("/naps/1"), ...writes]) {
      const { ans, ms } = await timed(req);
      expectFault(ans, 503);
      expect(ms, `${req.method} ${req.path}`).toBeLessThan(CONNECT_MS + SLACK_MS);
    }
    await proxy.set("forward");
    await expectServing();
  });

  it("answers 503 when the server goes away in the middle of a query, then serves again", async () => {
    const pending = timed(read("/naps?name=eq.0.8&select=id,nap"));
    await new Promise((r) => setTimeout(r, 250));
    await proxy.set("down");
    const { ans, ms } = await pending;
    expectFault(ans, 503);
    expect(ms).toBeLessThan(800 + SLACK_MS);
    await proxy.set("forward");
    await expectServing();
  });

  it("answers 503 after the query timeout when an open connection goes silent, then serves again", async () => {
    await expectServing(); // leaves an idle connection in the pool
    await proxy.set("blackhole");
    const { ans, ms } = await timed(read());
    expectFault(ans, 503);
    expect(ms).toBeGreaterThanOrEqual(QUERY_MS - 50);
    expect(ms).toBeLessThan(QUERY_MS + SLACK_MS);
    await proxy.set("forward");
    await expectServing();
  });

  it("answers 503 after the connection timeout when new connections are swallowed, writes included, then serves again", async () => {
    // A second executor with an empty pool, so every request must open a connection the proxy swallows.
    const cold = createPgExecutor({
      connectionString: proxiedUrl(),
      max: 3,
      connectionTimeoutMillis: CONNECT_MS,
      statementTimeoutMillis: STATEMENT_MS,
      queryTimeoutMillis: QUERY_MS,
    });
    const coldClient = rawClient(service, cold, { resourceConcurrency: false });
    try {
      await proxy.set("blackhole");
      for (const req of [read(), ...writes]) {
        const start = performance.now();
        const ans = await coldClient.send(req);
        const ms = performance.now() - start;
        expectFault(ans, 503);
        expect(ms, `${req.method} ${req.path}`).toBeGreaterThanOrEqual(CONNECT_MS - 50);
        expect(ms, `${req.method} ${req.path}`).toBeLessThan(CONNECT_MS + SLACK_MS);
      }
      await proxy.set("forward");
      const again = await coldClient.send(read());
      expect(again.status, again.text).toBe(200);
    } finally {
      await proxy.set("forward");
      await cold.close();
    }
  });

  it("a write whose open connection goes silent gives up after one query timeout", async () => {
    await expectServing();
    await proxy.set("blackhole");
    const { ans, ms } = await timed(writes[0]);
    expectFault(ans, 503);
    // BEGIN waits one query timeout; the watchdog ends the connection, so the ROLLBACK fails at once
    // (decision 1344). Waiting out a second timeout for it would take 2 × QUERY_MS.
    expect(ms).toBeGreaterThanOrEqual(QUERY_MS - 50);
    expect(ms).toBeLessThan(2 * QUERY_MS);
    await proxy.set("forward");
    await expectServing();
  });

  it("answers 504 when a statement outlives the statement timeout, and the connection serves on", async () => {
    const { ans, ms } = await timed(read("/naps?name=eq.30&select=id,nap"));
    expectFault(ans, 504);
    expect(ms).toBeGreaterThanOrEqual(STATEMENT_MS - 50);
    expect(ms).toBeLessThan(STATEMENT_MS + SLACK_MS);
    await expectServing();
  });

  it("answers 503 after the connection timeout when every pooled connection is busy", async () => {
    // Three slow reads hold the pool's three connections for 1.2 s each; the fourth waits for one.
    const slow = Array.from({ length: 3 }, () => timed(read("/naps?name=eq.1.2&select=id,nap")));
    for (let i = 0; i < 100 && !(exec.pool.totalCount === 3 && exec.pool.idleCount === 0); i++)
      await new Promise((r) => setTimeout(r, 10));
    const { ans, ms } = await timed(read());
    const held = await Promise.all(slow);
    expect(held.map((h) => h.ans.status)).toEqual([200, 200, 200]);
    expectFault(ans, 503);
    expect(ms).toBeLessThan(CONNECT_MS + SLACK_MS);
    await expectServing();
  });
});
