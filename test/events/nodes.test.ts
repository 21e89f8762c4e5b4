/**
 * The change feed across `resc serve` processes (docs/decisions/1337-change-feed.md):
 * two nodes over one database each serve their own subscribers, and every
 * subscriber receives every matching change once, whichever node wrote it;
 * a node killed outright loses nothing, since a subscriber resumes on the
 * other with the last id it received. A node stopping ends its streams
 * with `reconnect` instead of being held open by them. Real processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startServe, type ServeProcess } from "../support/serve-process.js";
import { compileText } from "../support/service.js";
import { openStream, type Stream } from "../support/sse.js";

const SCHEMA = `
table orders {
  id     bigint @primary_key @default(identity)
  region text   @filterable
  total  int    @filterable
  resource "/orders" { ops = [crud, list], events = true }
}
`;

let db: TestDatabase;
let dir: string;
const nodes: ServeProcess[] = [];
const streams: Stream[] = [];

async function node(): Promise<ServeProcess> {
  const n = await startServe(path.join(dir, "orders.resource"), ["--database-url", db.url!, "--pool-size", "3"]);
  nodes.push(n);
  return n;
}

async function create(n: ServeProcess, region: string, total: number): Promise<number> {
  const r = await fetch(`${n.base}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ region, total }),
  });
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: number }).id;
}

async function watch(n: ServeProcess, query: string, headers: Record<string, string> = {}): Promise<Stream> {
  const s = await openStream(`${n.base}/orders/events${query}`, headers);
  expect(s.status).toBe(200);
  streams.push(s);
  return s;
}

const totals = (s: Stream): number[] => s.messages.map((m) => (m.data as { total: number }).total);

beforeAll(async () => {
  db = await createTestDatabase("feed_nodes");
  if (db.kind !== "pg") return;
  dir = mkdtempSync(path.join(tmpdir(), "resc-feed-nodes-"));
  writeFileSync(path.join(dir, "orders.resource"), SCHEMA);
  await db.executor.script(compileText(SCHEMA).ddl);
});

afterAll(async () => {
  for (const s of streams) s.close();
  for (const n of nodes) await n.stop();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the change feed on two resc serve nodes", () => {
  it("delivers every write, on either node, once to every subscriber of both", async (t) => {
    if (db.kind !== "pg") t.skip();
    const [a, b] = [await node(), await node()];
    const onA = await watch(a, "?region=eq.north");
    const onB = await watch(b, "?region=eq.north");
    const bigOnB = await watch(b, "?total=gte.100");
    await create(a, "north", 1);
    await create(b, "north", 2);
    await create(b, "south", 300);
    await Promise.all([create(a, "north", 400), create(b, "north", 5)]);
    await onA.until(4);
    await onB.until(4);
    await bigOnB.until(2);
    // Settle: nothing more arrives (no duplicate from the other node's wake-up).
    await new Promise((r) => setTimeout(r, 1500));
    expect(totals(onA).slice(0, 2)).toEqual([1, 2]);
    expect(totals(onA).sort((x, y) => x - y)).toEqual([1, 2, 5, 400]);
    expect(totals(onB)).toEqual(totals(onA));
    expect(totals(bigOnB)).toEqual([300, 400]);
    expect(onA.messages.map((m) => m.id)).toEqual(onB.messages.map((m) => m.id));
  });

  it("resumes on another node after the first is killed, without gap or repeat", async (t) => {
    if (db.kind !== "pg") t.skip();
    const [a, b] = [nodes[0]!, nodes[1]!];
    const s = await watch(a, "?region=eq.west");
    await create(a, "west", 10);
    await create(b, "west", 11);
    await s.until(2);
    const last = s.lastId()!;
    a.child.kill("SIGKILL");
    await new Promise<void>((r) => a.child.once("exit", () => r()));
    await create(b, "west", 12);
    await db.executor.script("INSERT INTO orders (region, total) VALUES ('west', 13)");
    const resumed = await watch(b, "?region=eq.west", { "last-event-id": last });
    await resumed.until(2);
    await new Promise((r) => setTimeout(r, 1000));
    expect(totals(resumed)).toEqual([12, 13]);
  });

  it("delivers the webhooks its hooks module exports, signed, and counts them on /metrics", async (t) => {
    if (db.kind !== "pg") t.skip();
    const got: { headers: Record<string, string>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        got.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
    const secret = "whsec_" + Buffer.from("nodes test secret").toString("base64");
    const hooks = path.join(dir, "hooks.mjs");
    writeFileSync(
      hooks,
      `export const hooks = {};\nexport const webhooks = [{ name: "big", table: "orders", filter: "total=gte.1000", ` +
        `url: process.env.HOOK_URL, secret: process.env.HOOK_SECRET }];\n`,
    );
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
    const n = await startServe(path.join(dir, "orders.resource"), ["--database-url", db.url!, "--hooks", hooks], {
      env: { ...process.env, HOOK_URL: url, HOOK_SECRET: secret },
    });
    nodes.push(n);
    try {
      await new Promise((r) => setTimeout(r, 500));
      await create(n, "east", 5);
      await create(n, "east", 5000);
      for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(got).toHaveLength(1);
      expect(JSON.parse(got[0]!.body)).toMatchObject({ type: "orders.create", data: { region: "east", total: 5000 } });
      expect(() => new Webhook(secret).verify(got[0]!.body, got[0]!.headers)).not.toThrow();
      // The receiver sees the body before the sender has read its 204 and counted the delivery: wait for the count.
      const delivered = /resc_webhook_deliveries_total\{subscription="big",outcome="delivered"\} 1/;
      let metrics = "";
      for (let i = 0; i < 100 && !delivered.test(metrics); i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 50));
        metrics = await (await fetch(`${n.base}/metrics`)).text();
      }
      expect(metrics).toMatch(delivered);
    } finally {
      await n.stop();
      await new Promise((r) => receiver.close(() => r(undefined)));
    }
  });

  it("ends its streams with reconnect when it stops, instead of being held open", async (t) => {
    if (db.kind !== "pg") t.skip();
    const c = await node();
    const s = await watch(c, "");
    const code = await c.stop();
    await s.ended;
    expect(code).toBe(0);
    expect(s.messages.at(-1)).toMatchObject({ event: "reconnect", data: { reason: "shutdown" } });
  });
});
