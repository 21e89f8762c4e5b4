/**
 * Webhook delivery is at least once, whatever the process does
 * (docs/decisions/1359-webhook-delivery-at-least-once.md), against real
 * `resc serve` processes and a real receiver:
 *
 * - the service left idle, then written to from a plain PostgreSQL
 *   connection (not through HTTP), with transactions committing out of
 *   order, one holding the horizon without writing, and the LISTEN
 *   connection cut: every change arrives, promptly (a generous cap);
 * - the process SIGKILLed at each step between commit and delivery (after
 *   capture, after queueing, during the POST, before the position moves),
 *   each step held open by a gate the test owns (a trigger waiting on an
 *   advisory lock), then restarted: every change arrives;
 * - 20 kills in a row at random moments while a writer keeps writing:
 *   every committed change arrives, a duplicate only as a retry under the
 *   same `webhook-id`.
 *
 * The receiver down for longer than the retry schedule, and retention, are
 * in test/events/webhook-retry.test.ts (in-process: they need small
 * schedules). PostgreSQL only: the embedded database's side is there too.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_DDL } from "../../runtime/events/webhooks.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { startServe, type ServeProcess } from "../support/serve-process.js";
import { until } from "../support/until.js";
import { compileText } from "../support/service.js";

const SCHEMA = `
enum size { small large }
table parcels {
  id     bigint  @primary_key @default(identity)
  ref    uuid    @default(gen_random_uuid())
  size   size    @default(small) @filterable
  weight numeric @default(0)
  note   text    @filterable
  resource "/parcels" { ops = [crud, list], events = true }
}
`;
const SECRET = "whsec_" + Buffer.from("webhook faults secret").toString("base64");

let db: TestDatabase;
let dir: string;
let admin: pg.Client;
let receiver: Receiver;
const nodes = new Set<ServeProcess>();

/** Starts `resc serve` with a webhook subscription `name` on every change of parcels; resolves once it serves. */
async function serve(name: string): Promise<ServeProcess> {
  const n = await startServe(
    path.join(dir, "parcels.resource"),
    ["--database-url", db.url!, "--hooks", path.join(dir, "hooks.mjs")],
    { env: { ...process.env, HOOK_URL: receiver.url, HOOK_SECRET: SECRET, HOOK_NAME: name } },
  );
  nodes.add(n);
  return n;
}

/** Runs `sql` on a connection of its own (as psql would), closing it after. */
async function psql(sql: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return await c.query(sql, values);
  } finally {
    await c.end();
  }
}

/** A connection of its own with an open transaction: `q` runs in it, `commit` ends it. */
async function openTx(): Promise<{
  q(sql: string, values?: unknown[]): Promise<pg.QueryResult>;
  commit(): Promise<void>;
}> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query("BEGIN");
  return {
    q: (sql, values = []) => c.query(sql, values),
    async commit() {
      await c.query("COMMIT");
      await c.end();
    },
  };
}

const insert = (note: string, size = "small"): string =>
  `INSERT INTO parcels (note, size, weight) VALUES ('${note}', '${size}', 1.25)`;

/** The notes delivered to subscription `name` (each once, however often it was sent). */
function delivered(name: string): Set<string> {
  return new Set(receiver.got.filter((g) => g.id.startsWith(`${name}.`)).map((g) => g.data.note));
}

/** The saved position of `name`, or undefined (also while the first start has not made the table yet). */
async function cursor(name: string): Promise<string | undefined> {
  const r = await admin
    .query("SELECT xid::text || '.' || id::text AS p FROM resc_webhook_cursors WHERE subscription = $1", [name])
    .catch((e: { code?: string }) => {
      if (e.code === "42P01") return { rows: [] };
      throw e;
    });
  return r.rows[0]?.p as string | undefined;
}

/**
 * Whether a node started after `since` (the server's clock) listens: its feed has read where "now" is, so a
 * subscription's first run follows every change committed from here on.
 */
async function listeningSince(since: string): Promise<boolean> {
  const r = await admin.query(
    "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND backend_start > $1",
    [since],
  );
  return r.rows.length > 0;
}

/** Whether every delivery of `name` is marked delivered (so no statement of it is still to come). */
async function settled(name: string): Promise<boolean> {
  const r = await admin.query(
    "SELECT count(*)::int AS n FROM resc_deliveries WHERE subscription = $1 AND state <> 'delivered'",
    [name],
  );
  return r.rows[0].n === 0;
}

/** The gates: a BEFORE trigger waiting on advisory lock `key` while the test holds it. */
const GATES = { queue: 1, claim: 2, cursor: 3 } as const;

/** Whether a backend of the database waits on gate `key`; its pids. */
async function waitingAt(key: number): Promise<number[]> {
  const r = await admin.query(
    `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND NOT l.granted AND l.objid = $1 AND l.database =
       (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [key],
  );
  return r.rows.map((row) => row.pid as number);
}

/**
 * Kills the node while one of its statements waits at gate `key`, ends that statement's backend too (the
 * statement never runs, as when the process dies before sending it), then opens the gate.
 */
async function killAtGate(n: ServeProcess, key: number): Promise<void> {
  const pids = await until(`resc waiting at gate ${key}`, async () => {
    const p = await waitingAt(key);
    return p.length > 0 && p;
  });
  await n.kill();
  for (const pid of pids) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
  await admin.query("SELECT pg_advisory_unlock($1)", [key]);
}

beforeAll(async () => {
  db = await createTestDatabase("webhook_faults");
  if (db.kind !== "pg") return;
  dir = mkdtempSync(path.join(tmpdir(), "resc-webhook-faults-"));
  writeFileSync(path.join(dir, "parcels.resource"), SCHEMA);
  writeFileSync(
    path.join(dir, "hooks.mjs"),
    `export const hooks = {};\nexport const webhooks = [{ name: process.env.HOOK_NAME, table: "parcels", ` +
      `url: process.env.HOOK_URL, secret: process.env.HOOK_SECRET }];\n`,
  );
  await db.executor.script(compileText(SCHEMA, "parcels.resource").ddl);
  admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  receiver = await startReceiver();
});

afterAll(async () => {
  for (const n of nodes) await n.kill();
  await receiver?.close();
  await admin?.end();
  await db?.drop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("webhook delivery on resc serve, at least once", () => {
  // First: the outbox is still empty, as in a project's first hour.
  it("delivers writes made from psql to an idle service, out of commit order, promptly", async (t) => {
    if (db.kind !== "pg") t.skip();
    const n = await serve("idle");
    try {
      // Idle for longer than the fan-out's periodic save (5 s), with nothing captured yet.
      await new Promise((r) => setTimeout(r, 6000));
      await psql(insert("idle-1"));
      await until("the first write delivered", () => delivered("idle").has("idle-1"));

      // A takes a lower transaction id and writes first; B writes and commits; A commits last.
      const a = await openTx();
      await a.q(insert("idle-a"));
      const b = await openTx();
      await b.q(insert("idle-b"));
      await b.commit();
      await a.commit();
      // C holds the horizon without writing (its end wakes nobody); D commits behind it.
      const c = await openTx();
      await c.q("SELECT pg_current_xact_id()");
      await psql(insert("idle-d"));
      await c.commit();
      await until("A, B and D delivered", () => ["idle-a", "idle-b", "idle-d"].every((x) => delivered("idle").has(x)));
      // Order is not promised (docs/decisions/1359-webhook-delivery-at-least-once.md); the webhook-id carries the
      // feed's order: A, which wrote first, comes before B, which committed first.
      const at = (note: string): bigint[] =>
        receiver.got
          .find((g) => g.data.note === note)!
          .id.split(".")
          .slice(1)
          .map((x) => BigInt(x));
      const [a1, b1] = [at("idle-a"), at("idle-b")];
      expect(a1[0]! < b1[0]! || (a1[0] === b1[0] && a1[1]! < b1[1]!)).toBe(true);

      // The LISTEN connection cut: the next write still arrives (the poll, then the listener reconnected).
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
      );
      await psql(insert("idle-e"));
      await until("E delivered", () => delivered("idle").has("idle-e"));
      expect([...delivered("idle")].sort()).toEqual(["idle-1", "idle-a", "idle-b", "idle-d", "idle-e"]);
    } finally {
      await n.kill();
    }
  }, 90_000);

  it("delivers every change when killed at each step between commit and delivery", async (t) => {
    if (db.kind !== "pg") t.skip();
    const name = "steps";
    // The queue exists before the first start, so the gates can be in place before the first change.
    for (const ddl of WEBHOOK_DDL) await admin.query(ddl);
    await admin.query(`CREATE OR REPLACE FUNCTION test_gate() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_advisory_xact_lock_shared(TG_ARGV[0]::bigint); RETURN NEW; END $$`);
    await admin.query(
      `CREATE TRIGGER test_gate_queue BEFORE INSERT ON resc_deliveries FOR EACH ROW EXECUTE FUNCTION test_gate('${GATES.queue}')`,
    );
    await admin.query(
      `CREATE TRIGGER test_gate_claim BEFORE UPDATE ON resc_deliveries FOR EACH ROW EXECUTE FUNCTION test_gate('${GATES.claim}')`,
    );
    await admin.query(
      `CREATE TRIGGER test_gate_cursor BEFORE INSERT OR UPDATE ON resc_webhook_cursors FOR EACH ROW EXECUTE FUNCTION test_gate('${GATES.cursor}')`,
    );
    try {
      // After capture, before queueing, on the subscription's first run: the change is in resc_events only.
      const since = (await admin.query("SELECT now()::text AS t")).rows[0].t as string;
      await admin.query("SELECT pg_advisory_lock($1)", [GATES.queue]);
      let n = await serve(name);
      // Not the saved position: a first run killed before it saved one is the case looked at.
      await until("the new node listening", () => listeningSince(since));
      await psql(insert("after-capture"));
      await killAtGate(n, GATES.queue);
      const queued = await admin.query("SELECT count(*)::int AS n FROM resc_deliveries WHERE subscription = $1", [
        name,
      ]);
      expect(queued.rows[0].n).toBe(0);
      n = await serve(name);
      await until("after-capture delivered", () => delivered(name).has("after-capture"));

      // After queueing, before the POST: the row is in resc_deliveries, the claim waits (the only update to come).
      await until("after-capture marked delivered", () => settled(name));
      await admin.query("SELECT pg_advisory_lock($1)", [GATES.claim]);
      await psql(insert("after-queue"));
      await killAtGate(n, GATES.claim);
      const row = await admin.query(
        "SELECT state, attempts FROM resc_deliveries WHERE subscription = $1 AND payload LIKE '%after-queue%'",
        [name],
      );
      expect(row.rows).toEqual([{ state: "pending", attempts: 0 }]);
      expect(receiver.got.some((g) => g.data.note === "after-queue")).toBe(false);
      n = await serve(name);
      await until("after-queue delivered", () => delivered(name).has("after-queue"));

      // During the POST: the receiver holds the request; the process dies; the lease runs out and it is sent again.
      receiver.hold(true);
      await psql(insert("during-post"));
      await until("the POST in flight", () => receiver.held.length > 0);
      await n.kill();
      receiver.hold(false);
      for (const res of receiver.held.splice(0)) res.destroy();
      n = await serve(name);
      // The lease is the POST's timeout and 5 s (10 s and 5 s by default).
      await until(
        "during-post sent again",
        () => receiver.got.filter((g) => g.data.note === "during-post").length >= 2,
        60_000,
      );
      expect(new Set(receiver.got.filter((g) => g.data.note === "during-post").map((g) => g.id)).size).toBe(1);

      // Before the position moves: queued (and perhaps sent), the position still before it.
      await until("during-post marked delivered", () => settled(name));
      await admin.query("SELECT pg_advisory_lock($1)", [GATES.cursor]);
      const before = await cursor(name);
      await psql(insert("before-cursor"));
      await until("before-cursor queued", async () => {
        const r = await admin.query("SELECT 1 FROM resc_deliveries WHERE payload LIKE '%before-cursor%'");
        return r.rows.length > 0;
      });
      await killAtGate(n, GATES.cursor);
      expect(await cursor(name)).toBe(before);
      n = await serve(name);
      await until("before-cursor delivered", () => delivered(name).has("before-cursor"));
      // Judged again after the restart, queued once: one row, one webhook-id.
      const rows = await admin.query(
        "SELECT count(*)::int AS n FROM resc_deliveries WHERE payload LIKE '%before-cursor%'",
      );
      expect(rows.rows[0].n).toBe(1);
      expect(new Set(receiver.got.filter((g) => g.data.note === "before-cursor").map((g) => g.id)).size).toBe(1);
      await n.kill();
      expect([...delivered(name)].sort()).toEqual(["after-capture", "after-queue", "before-cursor", "during-post"]);
    } finally {
      await admin.query("SELECT pg_advisory_unlock_all()");
      await admin.query("DROP TRIGGER IF EXISTS test_gate_queue ON resc_deliveries");
      await admin.query("DROP TRIGGER IF EXISTS test_gate_claim ON resc_deliveries");
      await admin.query("DROP TRIGGER IF EXISTS test_gate_cursor ON resc_webhook_cursors");
    }
  }, 180_000);

  it("delivers every committed change across 20 kills in a row at random moments under writes", async (t) => {
    if (db.kind !== "pg") t.skip();
    const name = "kills";
    const committed: string[] = [];
    let writing = true;
    let failures = 0;
    let n = await serve(name);
    await until("the first position saved", () => cursor(name));
    // The writer: one row per statement, and now and then two transactions committing out of order.
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        try {
          if (i % 5 === 4) {
            const a = await openTx();
            await a.q(insert(`k${i}a`, "large"));
            const b = await openTx();
            await b.q(insert(`k${i}b`));
            await b.commit();
            committed.push(`k${i}b`);
            await a.commit();
            committed.push(`k${i}a`);
          } else {
            await psql(insert(`k${i}`));
            committed.push(`k${i}`);
          }
        } catch {
          failures++;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    try {
      for (let kill = 0; kill < 20; kill++) {
        // Anywhere from the first statements after "serving" to well into steady delivery.
        await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 1500)));
        await n.kill();
        n = await serve(name);
      }
      writing = false;
      await writer;
      expect(failures).toBe(0);
      // Leases of POSTs cut short run out after 15 s; everything else arrives sooner.
      await until(
        `all ${committed.length} committed changes delivered`,
        () => committed.every((x) => delivered(name).has(x)),
        90_000,
      ).catch((e: Error) => {
        const missing = committed.filter((x) => !delivered(name).has(x));
        throw new Error(`${e.message}; missing ${missing.join(", ")}\n${n.output().slice(-3000)}`);
      });
      // A change sent twice is a retry of the same message: one webhook-id per change.
      const ids = new Map<string, Set<string>>();
      for (const g of receiver.got.filter((x) => x.id.startsWith(`${name}.`)))
        ids.set(g.data.note, (ids.get(g.data.note) ?? new Set()).add(g.id));
      expect([...ids.values()].filter((s) => s.size > 1)).toEqual([]);
      expect(new Set(ids.keys())).toEqual(new Set(committed));
      expect(committed.length).toBeGreaterThan(40);
    } finally {
      writing = false;
      await writer;
      await n.kill();
    }
  }, 300_000);
});
