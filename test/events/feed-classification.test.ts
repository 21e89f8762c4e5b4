/**
 * What one change is to each subscriber of the change feed and each webhook
 * (docs/decisions/1337-change-feed.md, "What an update is to each
 * subscriber"), under declared access rules, on PostgreSQL and PGlite: a
 * soft delete (DELETE over HTTP, or SQL setting the `@soft_delete` column)
 * is a `delete` carrying the key, for every subscriber the row matched
 * before, whatever it matches after; a restored row is a `create`; an
 * update that changed only columns a subscriber does not receive (`@hidden`,
 * its role's `hide`, outside its `select`) sends it nothing.
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
import { openStream, type Received, type Stream } from "../support/sse.js";
import { startReceiver, type Delivery, type Receiver } from "../support/receiver.js";
import { until } from "../support/until.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { principalFromHeader, who } from "../support/principal.js";

const SCHEMA = `
table memos {
  id         bigint       @primary_key @default(identity)
  org        text         @filterable
  title      text         @filterable
  note       text?
  secret     text?        @hidden
  deleted_at timestamptz? @soft_delete @hidden
  resource "/memos" { ops = [crud, list] events = true }
}
`;
const SECRET = "whsec_" + Buffer.from("a webhook secret for the classification tests").toString("base64");

const ACCESS: AccessDescriptor[] = [
  {
    roles: ["member"],
    ops: ["list", "read", "events"],
    rows: [{ rule: { kind: "cmp", column: "org", op: "eq", value: { claim: "org" } } }],
    stamps: [],
    hide: ["note"],
  },
  { roles: ["admin"], ops: ["list", "read", "create", "update", "delete", "events"], rows: [], stamps: [], hide: [] },
];

function governed(service: ServiceDescriptor): ServiceDescriptor {
  return {
    ...service,
    auth: {
      roles: ["member", "admin"],
      roleClaim: ["role"],
      claims: [
        { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
        { name: "org", path: ["org"], kind: "text", array: false, sqlType: "text", nullable: false },
      ],
    },
    tables: service.tables.map((t): TableDescriptor => ({ ...t, access: ACCESS })),
  };
}

const member = who("member", "a", "alice");
const admin = who("admin", "z", "root");

/** Each message as `[event, data]`, the data reduced to what the test compares. */
const shape = (ms: readonly Received[]): [string, unknown][] => ms.map((m) => [m.event, m.data]);

/** A webhook's deliveries of `name`, answered 200, in the feed's order (the position in `webhook-id`). */
function delivered(receiver: Receiver, name: string): Delivery[] {
  const position = (d: Delivery): bigint[] => d.id.split(".").slice(1).map(BigInt);
  const mine = receiver.got.filter((d) => d.status === 200 && d.id.startsWith(`${name}.`));
  const unique = [...new Map(mine.map((d) => [d.id, d])).values()];
  return unique.sort((a, b) => {
    const [pa, pb] = [position(a), position(b)];
    return pa[0]! !== pb[0]! ? (pa[0]! < pb[0]! ? -1 : 1) : pa[1]! < pb[1]! ? -1 : pa[1]! > pb[1]! ? 1 : 0;
  });
}

describe.each(await databaseKinds())("what a change is to each subscriber on %s", (kind) => {
  let db: TestDatabase;
  let server: ServerType;
  let url: string;
  let receiver: Receiver;
  const streams: Stream[] = [];
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
  const watch = async (query: string, p: Principal): Promise<Stream> => {
    const st = await openStream(`${url}/memos/events${query}`, as(p));
    expect(st.status).toBe(200);
    streams.push(st);
    return st;
  };

  beforeAll(async () => {
    db = await freshDatabase(kind, "feed-classification");
    receiver = await startReceiver();
    const { ddl, service } = compileText(SCHEMA);
    await db.executor.script(ddl);
    const app = new Hono();
    app.use(principalFromHeader);
    const mounted = mountService(app, governed(service), {
      db: db.executor,
      events: { heartbeatMs: 200, pollMs: 200 },
      webhooks: {
        subscriptions: [
          { name: "org-a", table: "memos", url: receiver.url, secret: SECRET, principal: member },
          { name: "deletes", table: "memos", events: ["delete"], url: receiver.url, secret: SECRET, principal: admin },
        ],
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
    // Each webhook saves where it starts once it follows the feed: after that, no change can pass it by.
    await until("both webhooks to follow the feed", async () => {
      const r = await db.executor.query({ text: "SELECT count(*)::text AS n FROM resc_webhook_cursors", values: [] });
      return r.rows[0]?.n === "2";
    });
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    stop.abort();
    (server as unknown as { closeAllConnections?: () => void })?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await receiver?.close();
    await db?.drop();
  });

  it("tells every subscriber that saw a row of its soft delete as a delete, of its restoring as a create, and nothing of invisible changes", async () => {
    const mine = await watch("", member);
    const all = await watch("", admin);
    const titled = await watch("?title=eq.t1", admin);
    const titles = await watch("?select=title", admin);

    const one = await write("POST", "/memos", { org: "a", title: "t1", note: "n1" });
    // A column the member's role hides: the admin sees the change, the member and `select=title` do not.
    await write("PATCH", `/memos/${one.id}`, { note: "n2" });
    // A @hidden column: nobody receives it, so nobody is told.
    await db.executor.script(`UPDATE memos SET secret = 's2' WHERE id = ${one.id}`);
    // DELETE over HTTP marks the row: a delete for everyone who saw it, the key alone as a hard delete has.
    const two = await write("POST", "/memos", { org: "a", title: "t2" });
    await write("DELETE", `/memos/${two.id}`);
    // Purging a marked row deletes what nobody sees any more: nothing.
    await db.executor.script(`DELETE FROM memos WHERE id = ${two.id}`);
    // Marked by SQL while renamed: still a delete for `title=eq.t1`, which the new image no longer matches.
    await db.executor.script(`UPDATE memos SET deleted_at = now(), title = 'renamed' WHERE id = ${one.id}`);
    // A marked row changing is nothing to anyone.
    await db.executor.script(`UPDATE memos SET note = 'n3' WHERE id = ${one.id}`);
    // Restored: a create for those who can see it now (not `title=eq.t1`: it is `renamed`).
    await db.executor.script(`UPDATE memos SET deleted_at = NULL WHERE id = ${one.id}`);
    // The last change, seen by all four: once it arrives, everything before it has (the feed's order).
    await write("PATCH", `/memos/${one.id}`, { title: "t1" });

    const id = one.id;
    const gone = (n: number) => ["delete", { id: n }];
    expect(shape(await mine.until(6, 15_000))).toEqual([
      ["create", { id, org: "a", title: "t1" }],
      ["create", { id: two.id, org: "a", title: "t2" }],
      gone(two.id),
      gone(id),
      ["create", { id, org: "a", title: "renamed" }],
      ["update", { id, org: "a", title: "t1" }],
    ]);
    expect(shape(await all.until(7, 15_000))).toEqual([
      ["create", { id, org: "a", title: "t1", note: "n1" }],
      ["update", { id, org: "a", title: "t1", note: "n2" }],
      ["create", { id: two.id, org: "a", title: "t2", note: null }],
      gone(two.id),
      gone(id),
      ["create", { id, org: "a", title: "renamed", note: "n3" }],
      ["update", { id, org: "a", title: "t1", note: "n3" }],
    ]);
    expect(shape(await titled.until(4, 15_000))).toEqual([
      ["create", { id, org: "a", title: "t1", note: "n1" }],
      ["update", { id, org: "a", title: "t1", note: "n2" }],
      gone(id),
      ["update", { id, org: "a", title: "t1", note: "n3" }],
    ]);
    expect(shape(await titles.until(6, 15_000))).toEqual([
      ["create", { id, title: "t1" }],
      ["create", { id: two.id, title: "t2" }],
      gone(two.id),
      gone(id),
      ["create", { id, title: "renamed" }],
      ["update", { id, title: "t1" }],
    ]);
    // Nothing else came, nor any `leave`: the last change above is the last of the feed.
    for (const st of [mine, all, titled, titles]) expect(st.messages.some((m) => m.event === "leave")).toBe(false);
    expect([mine, all, titled, titles].map((st) => st.messages.length)).toEqual([6, 7, 4, 6]);

    // Webhooks are judged the same way: the member's sees what its stream saw; `events: ["delete"]` takes the soft deletes.
    const hooks = await until(
      "the webhooks' deliveries",
      () => delivered(receiver, "org-a").length >= 6 && delivered(receiver, "deletes").length >= 2,
      15_000,
    );
    expect(hooks).toBe(true);
    expect(delivered(receiver, "org-a").map((d) => [d.type, d.data])).toEqual(
      shape(mine.messages).map(([event, data]) => [`memos.${event}`, data]),
    );
    expect(delivered(receiver, "deletes").map((d) => [d.type, d.data])).toEqual([
      ["memos.delete", { id: two.id }],
      ["memos.delete", { id }],
    ]);
  }, 60_000);
});
