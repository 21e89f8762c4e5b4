/**
 * The change feed and webhooks under declared access rules
 * (docs/decisions/1367-access-rules.md), on PostgreSQL and PGlite: each
 * subscriber gets exactly the changes of the rows its principal may list,
 * `leave` when a row leaves its view, never a column its roles hide; a role
 * not granted `events` is a 403; a webhook delivers what its principal may read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Hono } from "hono";
import { serve, type ServerType } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { mountService } from "../../runtime/http/mount.js";
import type { Principal } from "../../runtime/auth/principal.js";
import type { AccessDescriptor, ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import type { TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";
import { openStream } from "../support/sse.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { until } from "../support/until.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { principalFromHeader, who } from "../support/principal.js";

const SCHEMA = `
table notes {
  id      bigint @primary_key @default(identity)
  org     text   @filterable
  level   int    @filterable
  title   text
  private text?
  resource "/notes" { ops = [crud, list] events = true }
}
`;
const SECRET = "whsec_" + Buffer.from("a webhook secret for the access tests").toString("base64");

const inOrg = { kind: "cmp", column: "org", op: "eq", value: { claim: "org" } } as const;
const ACCESS: AccessDescriptor[] = [
  {
    roles: ["member"],
    ops: ["list", "read", "events"],
    rows: [
      { rule: { kind: "and", children: [inOrg, { kind: "cmp", column: "level", op: "lte", value: { literal: 3 } }] } },
    ],
    stamps: [],
    hide: ["private"],
  },
  { roles: ["viewer"], ops: ["list", "read"], rows: [{ rule: inOrg }], stamps: [], hide: [] },
  { roles: ["admin"], ops: ["list", "read", "create", "update", "delete", "events"], rows: [], stamps: [], hide: [] },
];

function governed(service: ServiceDescriptor): ServiceDescriptor {
  return {
    ...service,
    auth: {
      roles: ["member", "viewer", "admin"],
      roleClaim: ["role"],
      claims: [
        { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
        { name: "org", path: ["org"], kind: "text", array: false, sqlType: "text", nullable: false },
      ],
    },
    tables: service.tables.map((t): TableDescriptor => ({ ...t, access: ACCESS })),
  };
}

const memberA = who("member", "a", "alice");
const memberB = who("member", "b", "bea");
const admin = who("admin", "b", "root");

describe.each(await databaseKinds())("the feed under access rules on %s", (kind) => {
  let db: TestDatabase;
  let server: ServerType;
  let url: string;
  let receiver: Receiver;
  const stop = new AbortController();
  const as = (p: Principal): Record<string, string> => ({ "x-principal": JSON.stringify(p) });
  const write = async (method: string, path: string, body?: unknown): Promise<{ id: number }> => {
    const r = await fetch(url + path, {
      method,
      headers: { "content-type": "application/json", ...as(admin) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(r.status, await r.clone().text()).toBeLessThan(300);
    return r.status === 204 ? { id: 0 } : ((await r.json()) as { id: number });
  };

  beforeAll(async () => {
    db = await freshDatabase(kind, "access-feed");
    receiver = await startReceiver();
    const { ddl, service } = compileText(SCHEMA);
    await db.executor.script(ddl);
    const app = new Hono();
    app.use(principalFromHeader);
    const mounted = mountService(app, governed(service), {
      db: db.executor,
      events: { heartbeatMs: 200, pollMs: 200 },
      webhooks: {
        subscriptions: [{ name: "org-a", table: "notes", url: receiver.url, secret: SECRET, principal: memberA }],
        pollMs: 200,
        retryBaseMs: 100,
      },
      signal: stop.signal,
    });
    if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
    server = await new Promise((resolve) => {
      const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    stop.abort();
    (server as unknown as { closeAllConnections?: () => void })?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await receiver?.close();
    await db?.drop();
  });

  it("a role not granted events is a 403; no principal is a 401", async () => {
    const viewer = await openStream(`${url}/notes/events`, as(who("viewer", "a", "vic")));
    expect(viewer.status).toBe(403);
    const nobody = await openStream(`${url}/notes/events`);
    expect(nobody.status).toBe(401);
  });

  it("each subscriber gets its own rows' changes, a leave when a row leaves its view, never a hidden column", async () => {
    const a = await openStream(`${url}/notes/events`, as(memberA));
    const b = await openStream(`${url}/notes/events`, as(memberB));
    expect(a.status).toBe(200);
    const one = await write("POST", "/notes", { org: "a", level: 1, title: "a1", private: "p" });
    await write("POST", "/notes", { org: "a", level: 7, title: "a-secret" });
    const three = await write("POST", "/notes", { org: "b", level: 0, title: "b1" });
    await write("PATCH", `/notes/${one.id}`, { level: 9 });
    await write("PATCH", `/notes/${three.id}`, { title: "b1 again" });
    const got = await a.until(2, 10_000);
    expect(got.map((m) => m.event)).toEqual(["create", "leave"]);
    expect(got[0]!.data).toMatchObject({ id: one.id, title: "a1" });
    expect(got[0]!.data).not.toHaveProperty("private");
    const gotB = await b.until(2, 10_000);
    expect(gotB.map((m) => [m.event, (m.data as { id: number }).id])).toEqual([
      ["create", three.id],
      ["update", three.id],
    ]);
    a.close();
    b.close();
  });

  it("a webhook delivers what its principal may read, and nothing of another org", async () => {
    await until("the webhook's deliveries", () => receiver.got.length >= 2, 15_000);
    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.got.map((d) => d.type)).toEqual(["notes.create", "notes.leave"]);
    expect(receiver.got[0]!.data).not.toHaveProperty("private");
    expect(receiver.got.some((d) => JSON.stringify(d.data).includes("b1"))).toBe(false);
  });
});
