/**
 * One locked table must not take the service down (docs/decisions/0911-lock-timeout.md;
 * docs/decisions/0911-lock-timeout.md). With `naps` held in ACCESS
 * EXCLUSIVE mode by another session:
 *
 * - a request on `/naps` waits at most the lock timeout, then answers 503
 *   `lock-timeout` naming `/naps`, with `Retry-After`;
 * - while more requests on `/naps` are waiting than the pool has
 *   connections, a request on `/pins` is answered before any of them gives
 *   up: the locked resource never holds the whole pool.
 *
 * Ordering, not elapsed time, is what is asserted: the `/pins` answer must
 * come while every `/naps` request is still waiting on the lock.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile } from "../support/service.js";
import { rawClient } from "../fuzz/support/http.js";

const LOCK_MS = 1500;
const db: TestDatabase = await createTestDatabase("locks");
let service: ServiceDescriptor;
let exec: PgExecutor;
let locker: pg.Client;

beforeAll(async () => {
  if (db.kind !== "pg") return;
  const compiled = await compileFile("test/faults/fixtures/faults.resource");
  service = compiled.service;
  await db.executor.script(
    compiled.ddl + "\nINSERT INTO naps (name) VALUES ('first'); INSERT INTO pins (label) VALUES ('a');",
  );
  exec = createPgExecutor({
    connectionString: db.url!,
    max: 4,
    lockTimeoutMillis: LOCK_MS,
    connectionTimeoutMillis: 5000,
  });
  locker = new pg.Client({ connectionString: db.url! });
  await locker.connect();
});

afterAll(async () => {
  await locker?.end().catch(() => {});
  await exec?.close().catch(() => {});
  await db.drop();
});

/** Runs `fn` while another session holds `naps` in ACCESS EXCLUSIVE mode. */
async function whileLocked<T>(fn: () => Promise<T>): Promise<T> {
  await locker.query("BEGIN");
  await locker.query("LOCK TABLE naps IN ACCESS EXCLUSIVE MODE");
  try {
    return await fn();
  } finally {
    await locker.query("ROLLBACK");
  }
}

describe.skipIf(db.kind !== "pg")("a table locked by another session", () => {
  it("answers 503 lock-timeout naming the resource, reads and writes alike", async () => {
    const client = rawClient(service, exec, { logError: () => {} });
    await whileLocked(async () => {
      for (const req of [
        { method: "GET", path: "/naps" },
        { method: "POST", path: "/naps", body: JSON.stringify({ name: "x" }) },
        { method: "PATCH", path: "/naps/1", body: JSON.stringify({ name: "y" }) },
      ]) {
        const ans = await client.send(req);
        expect(ans.status, ans.text).toBe(503);
        expect(ans.headers.get("retry-after")).toBe("1");
        expect(ans.json).toMatchObject({ type: "/problems/lock-timeout", status: 503 });
        expect((ans.json as { detail: string }).detail).toContain("/naps");
      }
    });
    expect((await client.send({ method: "GET", path: "/naps" })).status).toBe(200);
  });

  it("keeps other resources answering while more requests wait on the lock than the pool has connections", async () => {
    const client = rawClient(service, exec, { logError: () => {} });
    await whileLocked(async () => {
      let settled = 0;
      const waiting = Array.from({ length: 12 }, () =>
        client.send({ method: "GET", path: "/naps" }).finally(() => settled++),
      );
      // Let the locked requests take what they can of the pool first.
      await new Promise((r) => setTimeout(r, 100));
      const other = await client.send({ method: "GET", path: "/pins" });
      const settledWhenOtherAnswered = settled;
      expect(other.status, other.text).toBe(200);
      expect(settledWhenOtherAnswered, "a /naps request gave up before /pins was answered").toBe(0);
      const answers = await Promise.all(waiting);
      for (const a of answers) {
        expect(a.status).toBe(503);
        expect(["/problems/lock-timeout", "/problems/resource-busy"]).toContain((a.json as { type: string }).type);
      }
    });
  });
});
