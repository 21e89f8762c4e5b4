/**
 * Feed positions reveal nothing across tenants
 * (docs/decisions/1361-feed-positions-and-client-retries.md), on PostgreSQL
 * and on PGlite: an idle subscriber's heartbeats carry no position (its
 * position stays the last one it was sent, whatever other tenants write),
 * resuming from it loses nothing of its own and repeats nothing, and a
 * position that does not exist yet, or is no position at all, is a 400
 * problem naming `Last-Event-ID`. Positions are sealed
 * (docs/decisions/1365-opaque-feed-positions.md): an id opens, under the
 * database's secret, to the outbox position of its change; one altered, made
 * up or sealed under another key is refused; the plain `<xid>.<id>` of
 * earlier versions gets a `reload`. The tenant comes from a request header,
 * as test/fixtures-hooks/tenant.ts takes it; keys are uuids, the tenant a bigint.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { Position } from "../../runtime/events/position.js";
import { PositionSeal } from "../../runtime/events/sealed-position.js";
import { cmp } from "../../runtime/predicate.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { compileText } from "../support/service.js";
import { openStream, serveService, type Served, type Stream } from "../support/sse.js";

const SCHEMA = `
table ledger {
  id     uuid    @primary_key @default(gen_random_uuid())
  tenant bigint  @filterable
  amount numeric @filterable
  memo   text    @filterable
  resource "/ledger" { ops = [crud, list], events = true }
}
`;

const { service, ddl } = compileText(SCHEMA, "positions.resource");

/** Polls `ok` every 20 ms for at most `ms`; true once it held. */
async function eventually(ok: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

describe.each(await databaseKinds())("feed positions on %s", (kind) => {
  let served: Served;
  let drop: () => Promise<void>;
  let db: Executor;
  const streams: Stream[] = [];
  const watch = async (tenant: string, headers: Record<string, string> = {}, query = ""): Promise<Stream> => {
    const st = await openStream(`${served.url}/ledger/events${query}`, { "x-tenant": tenant, ...headers });
    streams.push(st);
    return st;
  };
  /** One row of `tenant`, written through resc. */
  const post = async (tenant: string, memo: string): Promise<void> => {
    const r = await fetch(`${served.url}/ledger`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-tenant": tenant },
      body: JSON.stringify({ tenant: Number(tenant), amount: "12.50", memo }),
    });
    expect(r.status, await r.clone().text()).toBe(201);
  };
  const memos = (ms: { data: unknown }[]): string[] => ms.map((m) => (m.data as { memo: string }).memo);
  /** The service's own seal, from the secret it keeps in the database (as every node reads it). */
  const seal = async (): Promise<PositionSeal> => {
    const r = await db.query({ text: "SELECT encode(value, 'hex') AS v FROM resc_secrets", values: [] });
    expect(r.rows).toHaveLength(1);
    return new PositionSeal(Buffer.from(r.rows[0]!.v!, "hex"));
  };
  /** The position an id the service sent stands for. */
  const positionOf = async (id: string): Promise<Position> => {
    const opened = (await seal()).open(id);
    if (opened.kind !== "sealed") throw new Error(`${id} is not a sealed position: ${opened.kind}`);
    return opened.position;
  };

  beforeAll(async () => {
    const o = await freshDatabase(kind, "feed_positions");
    drop = o.drop;
    db = o.executor;
    await db.script(ddl);
    served = await serveService(service as ServiceDescriptor, {
      db,
      events: { heartbeatMs: 50, pollMs: 100 },
      hooks: {
        beforeQuery: { ledger: (ctx) => cmp("tenant", "eq", ctx.http?.req.header("x-tenant") ?? "0") },
      },
    });
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    await served?.close();
    await drop?.();
  });

  it("keeps an idle subscriber's position where its own events left it while another tenant writes", async () => {
    const a = await watch("1");
    const b = await watch("2");
    expect(a.status).toBe(200);
    await post("1", "a-own");
    const [own] = await a.until(1);
    const mine = own!.id!;
    expect(a.lastId()).toBe(mine);
    // Tenant 2 writes seven rows; its own subscriber receiving them shows the feed has passed them.
    for (let i = 0; i < 7; i++) await post("2", `b${i}`);
    expect(memos(await b.until(7))).toEqual(["b0", "b1", "b2", "b3", "b4", "b5", "b6"]);
    // Heartbeats keep arriving; none moves tenant 1's position.
    const beats = a.comments();
    expect(await eventually(() => a.comments() >= beats + 3)).toBe(true);
    expect(a.lastId()).toBe(mine);
    expect(a.messages).toHaveLength(1);
  });

  it("keeps a fresh subscriber at the position it opened at, and resumes from it with exactly its own later events", async () => {
    const a = await watch("3");
    const b = await watch("4");
    expect(await eventually(() => a.lastId() !== undefined)).toBe(true);
    const opened = a.lastId();
    expect(opened).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (let i = 0; i < 5; i++) await post("4", `d${i}`);
    await b.until(5);
    const beats = a.comments();
    expect(await eventually(() => a.comments() >= beats + 3)).toBe(true);
    expect(a.lastId()).toBe(opened);
    a.close();
    // While it is away: the other tenant's rows around its own.
    await post("4", "d5");
    await post("3", "c1");
    await post("4", "d6");
    await post("3", "c2");
    await b.until(7);
    const again = await watch("3", { "last-event-id": a.lastId()! });
    expect(again.status).toBe(200);
    await post("3", "c3");
    expect(memos(await again.until(3))).toEqual(["c1", "c2", "c3"]);
    // Nothing more comes: the last own event was the sentinel, and the other tenant's rows never arrive.
    await post("4", "d7");
    await b.until(8);
    const beats2 = again.comments();
    expect(await eventually(() => again.comments() >= beats2 + 2)).toBe(true);
    expect(again.messages).toHaveLength(3);
    expect(new Set(again.messages.map((m) => m.id)).size).toBe(3);
  });

  it("refuses a position that does not exist yet, by header or parameter, naming Last-Event-ID", async () => {
    const a = await watch("5");
    await post("5", "now");
    const [now] = await a.until(1);
    const { xid, id } = await positionOf(now!.id!);
    const s = await seal();
    // A transaction id not handed out yet, an outbox id not handed out yet, both far ahead: sealed as a node would.
    const ahead: Position[] = [
      { xid: String(BigInt(xid) + 1_000_000n), id },
      { xid, id: String(BigInt(id) + 1_000_000n) },
      { xid: "99999999999", id: "1" },
    ];
    for (const future of ahead.map((p) => s.seal(p))) {
      const header = await openStream(`${served.url}/ledger/events`, {
        "x-tenant": "5",
        "last-event-id": future,
      });
      expect(header.status, future).toBe(400);
      expect(header.body).toMatchObject({
        type: "/problems/invalid-header",
        detail: expect.stringContaining("Last-Event-ID"),
        errors: [{ location: "header.last-event-id", value: future }],
      });
      const param = await openStream(`${served.url}/ledger/events?last_event_id=${future}`, { "x-tenant": "5" });
      expect(param.status, future).toBe(400);
      expect(param.body).toMatchObject({
        type: "/problems/invalid-query",
        errors: [{ location: "query.last_event_id", value: future }],
      });
    }
    // Not a position at all.
    // One character of a real id changed; a position sealed under another key; the right length, made up.
    const flip = now!.id!.at(-3) === "A" ? "B" : "A";
    const altered = `${now!.id!.slice(0, -3)}${flip}${now!.id!.slice(-2)}`;
    const foreign = new PositionSeal(Buffer.alloc(32, 7)).seal({ xid, id });
    const madeUp = "x".repeat(32);
    for (const malformed of ["tomorrow", "1.2.3", "-1.5", "1.99999999999999999999", altered, foreign, madeUp]) {
      const r = await openStream(`${served.url}/ledger/events`, {
        "x-tenant": "5",
        "last-event-id": malformed,
      });
      expect(r.status, malformed).toBe(400);
      expect(r.body, malformed).toMatchObject({
        detail: expect.stringContaining("Last-Event-ID"),
      });
    }
    // The position just given is accepted, and the stream starts there.
    const ok = await watch("5", { "last-event-id": now!.id! });
    expect(ok.status).toBe(200);
    expect(await eventually(() => ok.lastId() === now!.id!)).toBe(true);
  });

  it("tells a subscriber resuming from a purged position to reload, then follows", async () => {
    const a = await watch("6");
    await post("6", "old");
    const [old] = await a.until(1);
    a.close();
    // As the retention purge does: the change at the position is gone; later ones stay.
    await post("6", "kept");
    const { xid, id } = await positionOf(old!.id!);
    await db.query({
      text: "DELETE FROM resc_events WHERE xid = $1::xid8 AND id = $2::bigint",
      values: [xid, id],
    });
    const resumed = await watch("6", { "last-event-id": old!.id! });
    expect(resumed.status).toBe(200);
    const [reload] = await resumed.until(1);
    expect(reload!.event).toBe("reload");
    await post("6", "after");
    // The reloaded stream starts at the node's newest position, so the change of the instant before ("kept") may
    // still arrive first (docs/http.md); nothing older does, and "after" follows.
    let next = (await resumed.until(2))[1]!;
    if ((next.data as { memo?: string } | undefined)?.memo === "kept") next = (await resumed.until(3))[2]!;
    expect(next).toMatchObject({ event: "create", data: { memo: "after" } });
  });
  it("seals each event's position: the id opens to its change in the outbox, and two events' ids count nothing", async () => {
    const a = await watch("7");
    await post("7", "first");
    for (let i = 0; i < 5; i++) await post("8", `other${i}`);
    await post("7", "second");
    const [first, second] = await a.until(2);
    const ids = [first!.id!, second!.id!];
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The ids carry neither counter in the clear.
    const positions = await Promise.all(ids.map(positionOf));
    for (const [i, p] of positions.entries()) {
      expect(ids[i]).not.toContain(p.id);
      const r = await db.query({
        text: "SELECT new->>'memo' AS memo FROM resc_events WHERE xid = $1::xid8 AND id = $2::bigint",
        values: [p.xid, p.id],
      });
      expect(r.rows[0]?.memo).toBe(["first", "second"][i]);
    }
    // The other tenant's five rows lie between them in the outbox, and nowhere in what this subscriber was sent.
    expect(BigInt(positions[1]!.id) - BigInt(positions[0]!.id)).toBe(6n);
  });

  it("answers the plain position earlier versions sent with a reload, then follows from now", async () => {
    const a = await watch("9");
    await post("9", "before");
    const [before] = await a.until(1);
    const { xid, id } = await positionOf(before!.id!);
    const resumed = await watch("9", { "last-event-id": `${xid}.${id}` });
    expect(resumed.status).toBe(200);
    const [reload] = await resumed.until(1);
    expect(reload).toMatchObject({ event: "reload", data: { detail: expect.stringContaining("earlier version") } });
    expect(reload!.id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await post("9", "after");
    const got = await resumed.until(2);
    expect(got[1]).toMatchObject({ event: "create", data: { memo: "after" } });
  });
});
