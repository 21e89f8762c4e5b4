/**
 * Webhooks (docs/decisions/1338-webhooks.md) against a real receiver: each
 * matching change is POSTed, signed as Standard Webhooks says (verified by
 * the `standardwebhooks` package itself), retried with backoff while the
 * receiver fails, marked failed after the last attempt, counted on
 * /metrics, kept across a restart and sent once by two nodes.
 */
import { Registry } from "prom-client";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookOptions } from "../../runtime/events/webhooks.js";
import { cmp } from "../../runtime/predicate.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { compileText } from "../support/service.js";
import { serveService, type Served } from "../support/sse.js";
import { until } from "../support/until.js";

const SCHEMA = `
enum state { todo done }
table tasks {
  id     bigint @primary_key @default(identity)
  team   text   @filterable
  state  state  @default(todo) @filterable
  title  text
  secret text?  @hidden
  resource "/tasks" { ops = [crud, list], events = true }
}
`;
const { service, ddl } = compileText(SCHEMA, "webhooks.resource");
const SECRET = "whsec_" + Buffer.from("a secret of at least some bytes").toString("base64");

/** A receiver answering 500 to the first `failures` attempts of each message, 200 afterwards. */
function receiver(failures: number): Promise<Receiver> {
  const attempts = new Map<string, number>();
  return startReceiver((_n, d) => {
    const n = (attempts.get(d.id) ?? 0) + 1;
    attempts.set(d.id, n);
    return n <= failures ? 500 : 200;
  });
}

let db: TestDatabase;
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  db = await createTestDatabase("webhooks");
  await db.executor.script(ddl);
});
afterAll(async () => {
  for (const c of closing.reverse()) await c();
  await db?.drop();
});

async function node(webhooks: WebhookOptions): Promise<Served> {
  const s = await serveService(service, {
    db: db.executor,
    events: { pollMs: 100 },
    // A short POST timeout keeps the lease on a claimed delivery short when a node stops mid-attempt.
    webhooks: { pollMs: 100, retryBaseMs: 50, timeoutMs: 1000, ...webhooks },
    hooks: {
      beforeQuery: { tasks: (ctx) => (ctx.data ? cmp("team", "eq", (ctx.data as { team: string }).team) : undefined) },
    },
  });
  closing.push(() => s.close());
  return s;
}

describe("webhooks", () => {
  it("delivers each matching change signed, retrying a receiver that fails three times, and counts it", async () => {
    const r = await receiver(3);
    closing.push(r.close);
    const registry = new Registry();
    const s = await node({
      registry,
      subscriptions: [
        {
          name: "red-todo",
          table: "tasks",
          filter: "state=eq.todo",
          url: r.url,
          secret: SECRET,
          data: { team: "red" },
        },
      ],
    });
    // Give the subscription a moment to follow from now.
    await new Promise((res) => setTimeout(res, 300));
    await db.executor.script(
      `INSERT INTO tasks (team, title, secret) VALUES ('red', 'first', 'hunter2'), ('blue', 'not ours', NULL), ('red', 'second', NULL);
       UPDATE tasks SET state = 'done' WHERE title = 'second'`,
    );
    const ok = await until("two deliveries", () => {
      const done = r.got.filter((g) => g.status === 200);
      return done.length >= 3 && done;
    });
    // first: create; second: create, then a leave (done is out of the filter).
    const bodies = ok.map((g) => JSON.parse(g.body) as { type: string; data: Record<string, unknown> });
    expect(bodies.map((b) => b.type).sort()).toEqual(["tasks.create", "tasks.create", "tasks.leave"]);
    expect(bodies.find((b) => b.data.title === "first")?.data).toEqual({
      id: expect.any(Number),
      team: "red",
      state: "todo",
      title: "first",
    });
    expect(r.got.some((g) => g.body.includes("hunter2") || g.body.includes("not ours"))).toBe(false);
    // Four attempts per message, the same id each time, every one signed verifiably.
    const first = r.got.filter((g) => g.body.includes('"first"'));
    expect(first.map((g) => g.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(first.map((g) => g.headers["webhook-id"])).size).toBe(1);
    const wh = new Webhook(SECRET);
    for (const g of r.got) expect(() => wh.verify(g.body, g.headers as Record<string, string>)).not.toThrow();
    expect(() =>
      wh.verify(first[0]!.body.replace("first", "forged"), first[0]!.headers as Record<string, string>),
    ).toThrow();
    // Counted once the receiver's answer is back and the delivery is marked: wait for that.
    let metrics = "";
    const deadline = Date.now() + 10_000;
    while (!/outcome="delivered"\} 3/.test(metrics) && Date.now() < deadline) {
      metrics = await registry.metrics();
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(metrics).toMatch(/resc_webhook_deliveries_total\{subscription="red-todo",outcome="delivered"\} 3/);
    expect(metrics).toMatch(/resc_webhook_deliveries_total\{subscription="red-todo",outcome="retried"\} 9/);
    await s.close();
  }, 60_000);

  it("marks a delivery failed after its last attempt", async () => {
    const r = await receiver(1000);
    closing.push(r.close);
    const registry = new Registry();
    const s = await node({
      registry,
      maxAttempts: 3,
      subscriptions: [{ name: "always-down", table: "tasks", filter: "team=eq.gray", url: r.url, secret: SECRET }],
    });
    await new Promise((res) => setTimeout(res, 300));
    await db.executor.script(`INSERT INTO tasks (team, title) VALUES ('gray', 'doomed')`);
    await until("three attempts", () => r.got.length >= 3);
    const state = await (async () => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const q = await db.executor.query({
          text: "SELECT state, attempts::text AS attempts, last_error FROM resc_deliveries WHERE subscription = 'always-down'",
          values: [],
        });
        if (q.rows[0]?.state === "failed" || Date.now() > deadline) return q.rows[0];
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    expect(state).toEqual({ state: "failed", attempts: "3", last_error: "HTTP 500" });
    await new Promise((res) => setTimeout(res, 500));
    expect(r.got).toHaveLength(3);
    expect(await registry.metrics()).toMatch(/outcome="failed"\} 1/);
    await s.close();
  }, 60_000);

  it("keeps deliveries across a restart and sends each once from two nodes", async () => {
    const down = await receiver(1000);
    const sub = { name: "audit", table: "tasks", filter: "team=eq.audit", secret: SECRET };
    const first = await node({ subscriptions: [{ ...sub, url: down.url }] });
    await new Promise((res) => setTimeout(res, 300));
    await db.executor.script(`INSERT INTO tasks (team, title) VALUES ('audit', 'a1')`);
    await until("an attempt", () => down.got.length >= 1);
    await first.close();
    await down.close();
    // Written while no node runs: the subscription resumes from its saved position.
    await db.executor.script(`INSERT INTO tasks (team, title) VALUES ('audit', 'a2'), ('audit', 'a3')`);
    const up = await receiver(0);
    closing.push(up.close);
    await node({ subscriptions: [{ ...sub, url: up.url }] });
    await node({ subscriptions: [{ ...sub, url: up.url }] });
    await db.executor.script(`INSERT INTO tasks (team, title) VALUES ('audit', 'a4')`);
    await until("four deliveries", () => up.got.length >= 4);
    await new Promise((res) => setTimeout(res, 1500));
    const titles = up.got.map((g) => (JSON.parse(g.body) as { data: { title: string } }).data.title);
    expect(titles.sort()).toEqual(["a1", "a2", "a3", "a4"]);
  }, 60_000);

  it("refuses a subscription that cannot run, as a registration error", async () => {
    await expect(
      serveService(service, {
        db: db.executor,
        webhooks: {
          subscriptions: [
            { name: "x", table: "tasks", filter: "secret=eq.1", url: "http://127.0.0.1:9/", secret: SECRET },
          ],
        },
      }),
    ).rejects.toThrow(/webhook x: filter "secret=eq.1" is refused/);
  });
});
