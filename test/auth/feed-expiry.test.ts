/**
 * The change feed ends a stream when the token it was opened with expires
 * (docs/decisions/1367-access-rules.md): with `reconnect`, as on shutdown,
 * so the client resumes with a fresh token; the expired one is then refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "../idempotency/support.js";
import type { TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";
import { openStream, serveService, type Served } from "../support/sse.js";
import { authWith, hsSettings, hsToken, now, SECRET, SECRET_ENV } from "./support.js";

const SCHEMA = `
table notes {
  id    bigint @primary_key @default(identity)
  owner text   @filterable
  body  text
  resource "/notes" { ops = [crud, list] events = true }
}
`;

describe("a feed stream and its token's expiry", () => {
  let db: TestDatabase;
  let served: Served;

  beforeAll(async () => {
    const { service, ddl } = compileText(SCHEMA, "notes.resource");
    db = await freshDatabase("pglite", "feed-expiry");
    await db.executor.script(ddl);
    const auth = authWith({ jwt: hsSettings({ clockToleranceSeconds: 0 }) });
    const access = [{ roles: auth.roles, ops: ["list", "read", "events"], rows: [], stamps: [], hide: [] }];
    served = await serveService(
      { ...service, auth, tables: service.tables.map((t) => ({ ...t, access })) },
      { db: db.executor, events: { heartbeatMs: 200, pollMs: 200 }, auth: { env: { [SECRET_ENV]: SECRET } } },
    );
  });
  afterAll(async () => {
    await served?.close();
    await db?.drop();
  });

  it("ends a stream by itself with reconnect when the token expires, and refuses the expired token", async () => {
    const token = await hsToken({ exp: now() + 2 });
    const headers = { authorization: `Bearer ${token}` };
    const stream = await openStream(`${served.url}/notes/events`, headers);
    expect(stream.status).toBe(200);
    const opened = Date.now();
    await Promise.race([
      stream.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error("the stream did not end")), 6000)),
    ]);
    expect(Date.now() - opened).toBeGreaterThan(500);
    const last = stream.messages.at(-1);
    expect(last?.event).toBe("reconnect");
    expect(last?.data).toMatchObject({ reason: "token-expired" });
    const again = await openStream(`${served.url}/notes/events`, headers);
    expect(again.status).toBe(401);
  }, 15_000);

  it("keeps a stream whose token is still good open", async () => {
    const stream = await openStream(`${served.url}/notes/events`, { authorization: `Bearer ${await hsToken()}` });
    expect(stream.status).toBe(200);
    const ended = await Promise.race([
      stream.ended.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 1500)),
    ]);
    expect(ended).toBe(false);
    stream.close();
  });
});
