/**
 * What at-least-once webhook delivery promises when the receiver is away
 * and when no node runs (docs/decisions/1359-webhook-delivery-at-least-once.md):
 *
 * - a receiver down for longer than the retry schedule: the deliveries are
 *   marked `failed`, kept, and still delivered once it is back: by the slow
 *   retry (every `retryMaxMs`), and at once when a delivery of the same
 *   subscription next succeeds;
 * - a receiver that hangs holds back only its own deliveries;
 * - a start that fails (a hook throwing, the database away) is tried again;
 * - a node starting a subscription just as another did follows from the earlier position;
 * - retention never deletes a change a subscription has yet to queue;
 * - `resc dev` on the embedded database, left idle, delivers writes made
 *   through HTTP.
 *
 * The in-process cases run on the database test/support/db.ts gives
 * (PostgreSQL, or PGlite with `RESC_TEST_PGLITE=1`).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeedHub } from "../../runtime/events/hub.js";
import { WEBHOOK_DDL, webhookRetentionFloor, type WebhookOptions } from "../../runtime/events/webhooks.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { startResc } from "../support/serve-process.js";
import { until } from "../support/until.js";
import { compileText } from "../support/service.js";
import { serveService, type Served } from "../support/sse.js";

const SCHEMA = `
enum size { small large }
table parcels {
  id     bigint  @primary_key @default(identity)
  team   text    @filterable
  size   size    @default(small)
  weight numeric @default(0)
  note   text
  resource "/parcels" { ops = [crud, list], events = true }
}
`;
const { service, ddl } = compileText(SCHEMA, "parcels.resource");
const SECRET = "whsec_" + Buffer.from("webhook retry secret").toString("base64");

/**
 * A receiver answering 204, down at first (nothing listens: connection refused) until the test brings it up;
 * `notes` are the delivered rows' notes, in arrival order.
 */
async function receiver(): Promise<Receiver & { readonly notes: string[] }> {
  const r = await startReceiver(() => 204);
  await r.down();
  // A getter of its own (Object.assign would copy one value): each read sees what has arrived since.
  return Object.defineProperty(r, "notes", { get: () => r.got.map((d) => String(d.data.note)) }) as Receiver & {
    readonly notes: string[];
  };
}

let db: TestDatabase;
const closing: (() => Promise<void>)[] = [];

beforeAll(async () => {
  db = await createTestDatabase("webhook_retry");
  await db.executor.script(ddl);
  // The outbox is not empty: what these cases show does not hang on a subscription's first run on an empty one
  // (test/events/webhook-faults.test.ts has that).
  await write("seed", ["seed"]);
});
afterAll(async () => {
  for (const c of closing.reverse()) await c().catch(() => {});
  await db?.drop();
});

async function node(name: string, url: string, options: Partial<WebhookOptions> = {}): Promise<Served> {
  const s = await serveService(service, {
    db: db.executor,
    events: { pollMs: 100 },
    webhooks: {
      pollMs: 100,
      timeoutMs: 1000,
      ...options,
      subscriptions: [
        {
          name,
          table: "parcels",
          filter: `team=eq.${name}`,
          url,
          secret: SECRET,
        },
      ],
    },
  });
  closing.push(() => s.close());
  return s;
}

const write = (team: string, notes: string[]): Promise<void> =>
  db.executor.script(`INSERT INTO parcels (team, note) VALUES ${notes.map((n) => `('${team}', '${n}')`).join(", ")}`);

async function states(name: string): Promise<Record<string, string | null>[]> {
  const r = await db.executor.query({
    text: "SELECT state, attempts::text AS attempts FROM resc_deliveries WHERE subscription = $1 ORDER BY id",
    values: [name],
  });
  return r.rows;
}

async function savedPosition(name: string): Promise<boolean> {
  const r = await db.executor
    .query({
      text: "SELECT 1 AS k FROM resc_webhook_cursors WHERE subscription = $1",
      values: [name],
    })
    .catch(() => ({ rows: [] }));
  return r.rows.length > 0;
}

describe("a receiver down for longer than the retry schedule", () => {
  it("keeps the failed deliveries and sends them by the slow retry once it is back", async () => {
    const r = await receiver();
    closing.push(r.down);
    await node("slow", r.url, {
      retryBaseMs: 20,
      maxAttempts: 3,
      retryMaxMs: 1500,
    });
    await until("the position saved", () => savedPosition("slow"));
    await write("slow", ["s1", "s2", "s3"]);
    // Every attempt of the schedule spent while nothing listens.
    const failed = await until("three failed deliveries", async () => {
      const s = await states("slow");
      return s.length === 3 && s.every((x) => x.state === "failed") && s;
    });
    expect(failed.map((x) => x.attempts)).toEqual(["3", "3", "3"]);
    expect(r.notes).toEqual([]);
    await r.up();
    await until("all three delivered", () => r.notes.length >= 3);
    expect([...new Set(r.notes)].sort()).toEqual(["s1", "s2", "s3"]);
    await until("all three marked delivered", async () => (await states("slow")).every((x) => x.state === "delivered"));
  }, 60_000);

  it("sends the failed deliveries at once when a later delivery of the subscription succeeds", async () => {
    const r = await receiver();
    closing.push(r.down);
    // The slow retry an hour away: only the success of a later delivery brings them back within the test.
    await node("revive", r.url, { retryBaseMs: 20, maxAttempts: 2 });
    await until("the position saved", () => savedPosition("revive"));
    await write("revive", ["r1", "r2"]);
    await until("two failed deliveries", async () => {
      const s = await states("revive");
      return s.length === 2 && s.every((x) => x.state === "failed");
    });
    await r.up();
    await write("revive", ["r3"]);
    await until("all three delivered", () => new Set(r.notes).size >= 3);
    expect([...new Set(r.notes)].sort()).toEqual(["r1", "r2", "r3"]);
  }, 60_000);
});

describe("a receiver that hangs", () => {
  it("holds back its own deliveries only, not another subscription's", async () => {
    const quick = await receiver();
    await quick.up();
    closing.push(quick.down);
    // The hanging receiver: takes each request and never answers; `open` counts those still open.
    let open = 0;
    const hang = createServer((req) => {
      open++;
      req.socket.on("close", () => open--);
    });
    await new Promise<void>((res) => hang.listen(0, "127.0.0.1", () => res()));
    closing.push(
      () =>
        new Promise<void>((res) => {
          hang.closeAllConnections();
          hang.close(() => res());
        }),
    );
    const hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/in`;
    const s = await serveService(service, {
      db: db.executor,
      events: { pollMs: 100 },
      webhooks: {
        pollMs: 100,
        // Far longer than the wait below: the hanging POSTs are still open when the other delivery is checked.
        timeoutMs: 120_000,
        subscriptions: [
          {
            name: "hangs",
            table: "parcels",
            filter: "team=eq.hangs",
            url: hangUrl,
            secret: SECRET,
          },
          {
            name: "quick",
            table: "parcels",
            filter: "team=eq.quick",
            url: quick.url,
            secret: SECRET,
          },
        ],
      },
    });
    closing.push(() => s.close());
    await until("both positions saved", async () => (await savedPosition("hangs")) && savedPosition("quick"));
    await write("hangs", ["h1", "h2", "h3"]);
    await until("the three POSTs hanging", () => open >= 3);
    await write("quick", ["q1"]);
    await until("q1 delivered", () => quick.notes.includes("q1"));
    expect(open).toBe(3);
  }, 60_000);
});

describe("starting", () => {
  it("tries a failed start again instead of serving without delivery", async () => {
    const r = await receiver();
    await r.up();
    closing.push(r.down);
    let calls = 0;
    const errors: string[] = [];
    const kinds: string[] = [];
    const s = await serveService(service, {
      db: db.executor,
      events: { pollMs: 100 },
      // The subscription's BeforeQuery scope fails the first time (as a database away at boot would).
      hooks: {
        beforeQuery: {
          parcels: () => {
            if (++calls === 1) throw new Error("not yet");
            return undefined;
          },
        },
      },
      logError: (e, report) => {
        errors.push(String(e));
        kinds.push(`${report.status} ${report.kind}`);
      },
      webhooks: {
        pollMs: 100,
        subscriptions: [
          {
            name: "late",
            table: "parcels",
            filter: "team=eq.late",
            url: r.url,
            secret: SECRET,
          },
        ],
      },
    });
    closing.push(() => s.close());
    await until("the position saved", () => savedPosition("late"));
    expect(errors.some((e) => e.includes("webhooks could not start") && e.includes("not yet"))).toBe(true);
    // A hook's own failure is reported as what it is, not as the database being away.
    expect(kinds[0]).toBe("500 internal");
    await write("late", ["l1"]);
    await until("l1 delivered", () => r.notes.includes("l1"));
  }, 60_000);
});

describe("two nodes starting a subscription at once", () => {
  it("follows from the position the first one saved, when it is earlier than its own now", async () => {
    const r = await receiver();
    await r.up();
    closing.push(r.down);
    for (const text of WEBHOOK_DDL) await db.executor.query({ text, values: [] });
    // The other node's start: its position, then e1 and e2 written, which that node alone would have queued.
    await db.executor.query({
      text:
        "INSERT INTO resc_webhook_cursors (subscription, xid, id) SELECT 'race', xid, id FROM resc_events " +
        "ORDER BY xid DESC, id DESC LIMIT 1",
      values: [],
    });
    await write("race", ["e1", "e2"]);
    // This node read "no position yet" just before the other saved its own.
    let hidden = false;
    const racing: Executor = {
      ...db.executor,
      query: async (stmt) => {
        if (!hidden && stmt.text.startsWith("SELECT xid::text AS x, id::text AS i FROM resc_webhook_cursors")) {
          hidden = true;
          return { rows: [], rowCount: 0 };
        }
        return db.executor.query(stmt);
      },
    };
    const s = await serveService(service, {
      db: racing,
      events: { pollMs: 100 },
      webhooks: {
        pollMs: 100,
        subscriptions: [
          {
            name: "race",
            table: "parcels",
            filter: "team=eq.race",
            url: r.url,
            secret: SECRET,
          },
        ],
      },
    });
    closing.push(() => s.close());
    await until("e1 and e2 delivered", () => r.notes.includes("e1") && r.notes.includes("e2"));
    expect(hidden).toBe(true);
  }, 60_000);
});

describe("retention", () => {
  it("keeps every change a subscription has yet to queue while no node runs", async () => {
    const r = await receiver();
    await r.up();
    closing.push(r.down);
    const first = await node("kept", r.url);
    await until("the position saved", () => savedPosition("kept"));
    await write("kept", ["k1"]);
    await until("k1 delivered", () => r.notes.includes("k1"));
    await first.close();
    await write("kept", ["k2", "k3"]);
    // Everything is older than a retention of 0 s; the purge keeps what "kept" has not queued.
    const hub = new FeedHub(db.executor, service, { retentionSeconds: 0 });
    await hub.purge(await webhookRetentionFloor(db.executor, ["kept"]));
    await node("kept", r.url);
    await until("k2 and k3 delivered", () => r.notes.includes("k2") && r.notes.includes("k3"));
    expect([...new Set(r.notes)].sort()).toEqual(["k1", "k2", "k3"]);
  }, 60_000);
});

describe("resc dev on the embedded database", () => {
  it("delivers writes made through HTTP to an idle service", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "resc-webhook-dev-"));
    const r = await receiver();
    await r.up();
    closing.push(r.down);
    writeFileSync(path.join(dir, "schema.resource"), SCHEMA);
    writeFileSync(
      path.join(dir, "hooks.mjs"),
      `export const hooks = {};\nexport const webhooks = [{ name: "dev", table: "parcels", ` +
        `url: ${JSON.stringify(r.url)}, secret: ${JSON.stringify(SECRET)} }];\n`,
    );
    const dev = await startResc("dev", "schema.resource", ["--data-dir", "db", "--hooks", "hooks.mjs"], {
      cwd: dir,
      env: { ...process.env, DATABASE_URL: "" },
    });
    try {
      // Idle for longer than the fan-out's periodic save (5 s), nothing captured yet.
      await new Promise((res) => setTimeout(res, 6000));
      const post = (note: string) =>
        fetch(`${dev.base}/parcels`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            team: "dev",
            note,
            weight: "2.50",
            size: "large",
          }),
        }).then((res) => res.status);
      expect(await Promise.all([post("d1"), post("d2")])).toEqual([201, 201]);
      await until("d1 and d2 delivered", () => r.notes.includes("d1") && r.notes.includes("d2")).catch((e: Error) => {
        throw new Error(`${e.message}\n${dev.output()}`);
      });
      // Idle again, then one more.
      await new Promise((res) => setTimeout(res, 2000));
      expect(await post("d3")).toBe(201);
      await until("d3 delivered", () => r.notes.includes("d3"));
      expect([...new Set(r.notes)].sort()).toEqual(["d1", "d2", "d3"]);
    } finally {
      await dev.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
