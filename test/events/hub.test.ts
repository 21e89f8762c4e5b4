/**
 * The hub's own bookkeeping (runtime/events/hub.ts), on PGlite: a
 * subscriber arriving while the last one leaves finds a running feed, and
 * one resuming from a purged position is told to reload.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { FeedHub, type FeedEvent, type FeedSink } from "../../runtime/events/hub.js";
import { compileText } from "../support/service.js";
import { until } from "../support/until.js";

const { service, ddl } = compileText(`
table notes {
  id   bigint @primary_key @default(identity)
  body text   @filterable
  resource "/notes" { ops = [list], events = true }
}
`);
const table = service.tables[0]!;
let pglite: PGlite;
let db: Executor;

beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
  db = createPgliteExecutor(pglite);
  await db.script(ddl);
});
afterAll(async () => {
  await pglite?.close();
});

function sink(): FeedSink & { events: FeedEvent[]; reloads: number } {
  const s = {
    events: [] as FeedEvent[],
    reloads: 0,
    deliver: (e: FeedEvent) => void s.events.push(e),
    reload: () => void s.reloads++,
    end: () => {},
  };
  return s;
}

describe("FeedHub", () => {
  it("keeps running for a subscriber that arrives while the last one leaves", async () => {
    const hub = new FeedHub(db, service, { pollMs: 50 });
    const a = await hub.subscribe(table, {}, undefined, sink());
    const b = sink();
    const subscribing = hub.subscribe(table, {}, undefined, b);
    a.cancel();
    const sub = await subscribing;
    await db.script("INSERT INTO notes (body) VALUES ('after')");
    await until("b's first event", () => b.events.length > 0, 4000);
    expect(b.events.map((e) => e.kind)).toEqual(["create"]);
    sub.cancel();
    await hub.close();
  });

  it("tells a subscriber resuming from a purged position to reload, keeping the newest change", async () => {
    const hub = new FeedHub(db, service, { retentionSeconds: 0 });
    await db.script("INSERT INTO notes (body) VALUES ('old'), ('newest')");
    const first = sink();
    const from = await hub.subscribe(table, {}, { xid: "0", id: "0" }, first);
    await until("two events", () => first.events.length >= 2, 4000);
    const position = first.events[0]!.position;
    from.cancel();
    expect(await hub.purge()).toBeGreaterThan(0);
    const r = await db.query({ text: "SELECT count(*)::text AS n FROM resc_events", values: [] });
    expect(r.rows[0]!.n).toBe("1");
    const late = sink();
    const again = await hub.subscribe(table, {}, position, late);
    expect(late.reloads).toBe(1);
    again.cancel();
    await hub.close();
  });
});
