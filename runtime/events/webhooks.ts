/**
 * Webhooks (docs/decisions/1338-webhooks.md): each subscription follows a
 * resource's change feed like a stream does (the list grammar's filter,
 * the BeforeQuery scope, hidden columns never sent) and every matching
 * event becomes a row of `resc_deliveries`, written idempotently, so the
 * nodes that all follow the outbox queue it once. Workers on every node
 * claim due deliveries with `FOR UPDATE SKIP LOCKED`, POST them signed as
 * the Standard Webhooks specification says (the `standardwebhooks`
 * package), and retry failures with exponential backoff and jitter; a
 * delivery past its last scheduled attempt is marked failed and still
 * tried, slowly, and at once after a success. Deliveries and each
 * subscription's position are in the database, the position saved only
 * once what precedes it is queued, so a process killed at any step loses
 * nothing: delivery is at least once
 * (docs/decisions/1359-webhook-delivery-at-least-once.md). A subscription
 * whose filter or scope the database refuses to judge is the operator's to
 * fix: it is told, and the subscription follows again from the same
 * position after a pause (docs/decisions/1364-feed-isolation.md).
 */
import { Counter, type Registry } from "prom-client";
import { Webhook } from "standardwebhooks";
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { ProblemError } from "../problem.js";
import type { HookData, Hooks } from "../hooks.js";
import { confine } from "../hooks/scope.js";
import type { Principal } from "../auth/principal.js";
import { governed, granted } from "../access/rules.js";
import { serviceView, viewSelect } from "../access/view.js";
import { parseListQuery } from "../query/index.js";
import { encodeArray } from "../sql/bind.js";
import type { EndReason, FeedEvent, FeedHub, FeedSink, Subscribed } from "./hub.js";
import type { Subscription } from "./match.js";
import { DELIVERIES_TABLE } from "./outbox.js";
import { DELIVERIES_WAITING_INDEX, FORMER_DELIVERIES_DUE_INDEX, WEBHOOK_CURSORS_TABLE } from "../own-objects.js";
import { comparePositions, type Position } from "./position.js";

/** The kinds of change a subscription may ask for. */
export type WebhookEventKind = FeedEvent["kind"];

/** One webhook subscription: configuration, not schema (docs/decisions/1338-webhooks.md). */
export interface WebhookSubscription {
  /** Stable name: deliveries and the subscription's position are kept under it. */
  name: string;
  /** The table whose resource declares `events = true`. */
  table: string;
  /** The kinds delivered; default all (`create`, `update`, `delete`, `leave`). */
  events?: readonly WebhookEventKind[];
  /** A list query's filters, search and select as a query string (`status=eq.todo&select=id,title`); default every row. */
  filter?: string;
  /** Where deliveries are POSTed. */
  url: string;
  /** The Standard Webhooks signing secret (`whsec_` and base64). */
  secret: string;
  /** The data BeforeQuery hooks receive (there is no request), e.g. the tenant the subscription belongs to. */
  data?: HookData;
  /**
   * Whom the subscription belongs to (docs/decisions/1367-access-rules.md): under declared access rules
   * it is required, its roles must be granted `events` on the table, and it receives only the rows and
   * columns that principal may read.
   */
  principal?: Principal;
}

/** {@link startWebhooks}'s options. Times are milliseconds. */
export interface WebhookOptions {
  subscriptions: readonly WebhookSubscription[];
  /**
   * Attempts on the backoff schedule before a delivery is marked `failed`; default 8. A failed
   * delivery is kept and tried again every `retryMaxMs`, and at once when a delivery of its
   * subscription next succeeds: it is never dropped (docs/decisions/1359-webhook-delivery-at-least-once.md).
   */
  maxAttempts?: number;
  /** The first retry's delay; each later one doubles, with jitter; default 1000. */
  retryBaseMs?: number;
  /** The longest delay between two attempts, and the pause between the attempts of a failed delivery; default one hour. */
  retryMaxMs?: number;
  /** How long one POST may take; default 10000. */
  timeoutMs?: number;
  /** How often workers look for due deliveries besides being woken; default 1000. */
  pollMs?: number;
  /** Where `resc_webhook_deliveries_total` is registered (`/metrics`); default nowhere. */
  registry?: Registry;
  /** Told about each failure to reach the database. */
  onError?: (e: unknown) => void;
}

/** A running dispatcher; `stop` ends its subscriptions and workers (deliveries in flight finish). */
export interface Webhooks {
  stop(): Promise<void>;
}

/** The positions of each subscription: where its feed resumes after a restart. */
export { WEBHOOK_CURSORS_TABLE }; // stated with resc's other own objects, runtime/own-objects.ts

/** The delivery queue and the positions, safe to run again. */
export const WEBHOOK_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${DELIVERIES_TABLE} (` +
    "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, subscription text NOT NULL, " +
    "event_xid xid8 NOT NULL, event_id bigint NOT NULL, type text NOT NULL, payload text NOT NULL, " +
    "state text NOT NULL DEFAULT 'pending', attempts integer NOT NULL DEFAULT 0, " +
    "next_at timestamptz NOT NULL DEFAULT now(), last_error text, created_at timestamptz NOT NULL DEFAULT now(), " +
    "delivered_at timestamptz, UNIQUE (subscription, event_xid, event_id))",
  // Failed deliveries are still tried (docs/decisions/1359-webhook-delivery-at-least-once.md): the index of due
  // rows covers them, under a new name since an index's predicate cannot be changed in place.
  `DROP INDEX IF EXISTS ${FORMER_DELIVERIES_DUE_INDEX}`,
  `CREATE INDEX IF NOT EXISTS ${DELIVERIES_WAITING_INDEX} ON ${DELIVERIES_TABLE} (next_at) WHERE state <> 'delivered'`,
  `CREATE TABLE IF NOT EXISTS ${WEBHOOK_CURSORS_TABLE} (subscription text PRIMARY KEY, xid xid8 NOT NULL, id bigint NOT NULL)`,
];

/**
 * Deliveries one node POSTs at once. A pass claims only what fits and never waits for the POSTs, so a
 * receiver that hangs until the timeout holds its own deliveries back, not those of the other subscriptions.
 */
const IN_FLIGHT = 32;

/** Why a subscription cannot run: an unknown table, one without events, a filter the list grammar refuses. */
export class WebhookConfigError extends Error {}

/** The delay before attempt `attempts + 1`: base · 2^(attempts−1), capped, the upper half randomised (equal jitter). */
export function retryDelay(attempts: number, baseMs: number, maxMs: number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

interface Pending {
  event: FeedEvent;
  payload: string;
}

/** How long a fan-out waits before writing again after the database refused a write, in milliseconds. */
const FLUSH_RETRY_MS = 1000;

/** The longest pause before a subscription the database refused to judge follows again, in milliseconds. */
const FAILED_RETRY_MAX_MS = 60_000;

/**
 * One subscription's side: turns its events into delivery rows and keeps
 * its position. The position is saved only after every event up to it is
 * in `resc_deliveries` (docs/decisions/1359-webhook-delivery-at-least-once.md),
 * so a process killed at any step resumes at or before the first change it
 * had not queued.
 */
class Fanout implements FeedSink {
  private pending: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  /** Refusals in a row since the last event delivered: the pause before following again doubles with each. */
  private refusals = 0;
  private resuming: NodeJS.Timeout | undefined;
  subscribed: Subscribed | undefined;

  /**
   * @param follow subscribes this fan-out again after `after`, once the database refused to judge it
   * @param pauseMs the first pause before following again; it doubles up to {@link FAILED_RETRY_MAX_MS}
   */
  constructor(
    private readonly db: Executor,
    private readonly sub: WebhookSubscription,
    private readonly resource: string,
    private readonly wake: () => void,
    private readonly onError: (e: unknown) => void,
    private readonly follow: (after: Position) => Promise<Subscribed>,
    private readonly pauseMs: number,
  ) {}

  deliver(event: FeedEvent): void {
    this.refusals = 0;
    if (this.sub.events && !this.sub.events.includes(event.kind)) return;
    const payload =
      `{"type":${JSON.stringify(`${this.resource}.${event.kind}`)},` +
      `"timestamp":${JSON.stringify(new Date().toISOString())},"data":${event.data}}`;
    this.pending.push({ event, payload });
    void this.flush();
  }

  /** Events between the saved position and the oldest kept were purged: said, since they cannot be delivered. */
  reload(): void {
    this.onError(
      new Error(`webhook ${this.sub.name}: its position is older than the changes kept; events were missed`),
    );
  }

  /**
   * A stopping hub needs nothing: the queue stays, and another node (or this one restarted) delivers it.
   * A subscription the database refused to judge (its filter, or its scope's hook, meets something the
   * database cannot compute) is told to the operator and followed again from the same position after a
   * pause, doubling while it keeps failing: its position is never saved past the refused change, so
   * once the cause is gone it delivers everything.
   */
  end(reason: EndReason, failure?: ProblemError): void {
    if (reason !== "failed" || this.closed) return;
    // The hub left the subscription's position where the refused changes begin.
    const at = this.subscribed?.position();
    if (!at) return;
    const pause = Math.min(this.pauseMs * 2 ** Math.min(this.refusals, 30), FAILED_RETRY_MAX_MS);
    this.refusals++;
    const what = failure ? `: ${failure.toDocument().type}: ${failure.message}` : "";
    this.onError(
      new Error(
        `webhook ${this.sub.name}: the database refused to judge its filter or scope; its position is kept, ` +
          `following again in ${(pause / 1000).toFixed(1)} s${what}`,
        { cause: failure },
      ),
    );
    this.resume(at, pause);
  }

  /** Follows again after `at` in `pause` milliseconds, and again later while subscribing fails. */
  private resume(at: Position, pause: number): void {
    if (this.resuming) clearTimeout(this.resuming);
    this.resuming = setTimeout(() => {
      this.resuming = undefined;
      if (this.closed) return;
      this.follow(at).then(
        (subscribed) => {
          if (this.closed) subscribed.cancel();
          else this.subscribed = subscribed;
        },
        (e: unknown) => {
          this.onError(e);
          if (!this.closed) this.resume(at, Math.min(pause * 2, FAILED_RETRY_MAX_MS));
        },
      );
    }, pause);
    this.resuming.unref();
  }

  /** No more retries once the dispatcher stops (a last {@link flush} still runs). */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    if (this.resuming) clearTimeout(this.resuming);
    this.retry = this.resuming = undefined;
  }

  /**
   * Writes the queued deliveries (a duplicate from another node is
   * ignored), each batch's position after it, then the position the feed
   * reached; runs until nothing is left, so an event handed over while the
   * position was being saved is written by the same run. A failed write
   * keeps the events queued and is tried again after {@link FLUSH_RETRY_MS}.
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    const run = async (): Promise<void> => {
      try {
        for (;;) {
          if (this.pending.length > 0) {
            // Taken off the queue only once written: a failed write (the database away) is tried again later.
            const batch = this.pending.slice(0, 500);
            await this.db.query({
              text:
                `INSERT INTO ${DELIVERIES_TABLE} (subscription, event_xid, event_id, type, payload) ` +
                `SELECT $1, x::xid8, i::bigint, t, p FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS u(x, i, t, p) ` +
                `ON CONFLICT (subscription, event_xid, event_id) DO NOTHING`,
              values: [
                this.sub.name,
                encodeArray(batch.map((b) => b.event.position.xid)),
                encodeArray(batch.map((b) => b.event.position.id)),
                encodeArray(batch.map((b) => b.event.kind)),
                encodeArray(batch.map((b) => b.payload)),
              ],
            });
            this.pending.splice(0, batch.length);
            this.wake();
            await this.savePosition(batch.at(-1)!.event.position);
            continue;
          }
          // Read while nothing is queued: every event before this position has been handed over and written.
          const at = this.subscribed?.position();
          if (at && at.xid !== "0") await this.savePosition(at);
          if (this.pending.length === 0) return;
        }
      } catch (e) {
        this.onError(e);
        if (!this.closed && !this.retry) {
          this.retry = setTimeout(() => {
            this.retry = undefined;
            void this.flush();
          }, FLUSH_RETRY_MS);
          this.retry.unref();
        }
      }
    };
    // Cleared in a later microtask than the assignment, even when the run ends without waiting.
    const p: Promise<void> = run().finally(() => {
      if (this.flushing === p) this.flushing = undefined;
    });
    this.flushing = p;
    return p;
  }

  /** Saves `p` unless the saved position is already there or further (another node's, or an older run's). */
  async savePosition(p: Position): Promise<void> {
    await this.db.query({
      text:
        `INSERT INTO ${WEBHOOK_CURSORS_TABLE} AS c (subscription, xid, id) VALUES ($1, $2::xid8, $3::bigint) ` +
        `ON CONFLICT (subscription) DO UPDATE SET xid = excluded.xid, id = excluded.id ` +
        `WHERE (c.xid, c.id) < (excluded.xid, excluded.id)`,
      values: [this.sub.name, p.xid, p.id],
    });
  }
}

/** The subscription's table, checked: it must exist and declare events. */
function tableOf(service: ServiceDescriptor, sub: WebhookSubscription): TableDescriptor {
  const table = service.tables.find((t) => t.name === sub.table);
  if (!table?.resource?.events)
    throw new WebhookConfigError(
      `webhook ${sub.name}: table "${sub.table}" ${table ? "does not declare events = true" : "is not in the schema"}`,
    );
  return table;
}

/**
 * Why each subscription cannot run, checked before anything starts (a
 * mount refuses them as it refuses missing hooks): a name used twice, an
 * unknown table, one without `events = true`, a filter the list grammar
 * refuses.
 */
export function webhookProblems(service: ServiceDescriptor, subs: readonly WebhookSubscription[]): string[] {
  const out: string[] = [];
  const names = new Set<string>();
  for (const sub of subs) {
    try {
      if (names.has(sub.name)) throw new WebhookConfigError(`webhook ${sub.name}: the name is used twice`);
      names.add(sub.name);
      prepare(service, sub);
    } catch (e) {
      out.push((e as Error).message);
    }
  }
  return out;
}

/** A subscription's table and parsed filter. */
function prepare(service: ServiceDescriptor, sub: WebhookSubscription) {
  let table = tableOf(service, sub);
  if (governed(service)) {
    if (sub.principal === undefined)
      throw new WebhookConfigError(
        `webhook ${sub.name}: the service declares access rules, so a subscription needs the principal it belongs to`,
      );
    if (!granted(table, sub.principal, "events"))
      throw new WebhookConfigError(
        `webhook ${sub.name}: no role of its principal (${sub.principal.roles.join(", ")}) is granted events on ${table.name}`,
      );
    // The filter and the payload are those of the descriptors its roles see: a column hidden from them is neither.
    service = serviceView(service, sub.principal, new Map());
    table = tableOf(service, sub);
  }
  try {
    return {
      sub,
      table,
      q: parseListQuery(service, table, new URLSearchParams(sub.filter ?? "")),
    };
  } catch (e) {
    const items = (e as { errors?: { location: string; detail: string }[] }).errors ?? [];
    const why = items.map((i) => `${i.location}: ${i.detail}`).join("; ") || (e as Error).message;
    throw new WebhookConfigError(`webhook ${sub.name}: filter "${sub.filter ?? ""}" is refused: ${why}`);
  }
}

/**
 * Starts delivering the subscriptions' events: creates the delivery queue
 * if needed, resumes each subscription where it stopped (from now, the
 * first time), and runs the workers.
 * @throws WebhookConfigError for a subscription that cannot run; the driver's error when the database cannot be reached
 */
export async function startWebhooks(
  db: Executor,
  service: ServiceDescriptor,
  hooks: Hooks,
  feed: FeedHub,
  options: WebhookOptions,
): Promise<Webhooks> {
  const onError = options.onError ?? (() => {});
  const problems = webhookProblems(service, options.subscriptions);
  if (problems.length > 0) throw new WebhookConfigError(problems.join("\n"));
  const prepared = options.subscriptions.map((sub) => prepare(service, sub));
  for (const ddl of WEBHOOK_DDL) await db.query({ text: ddl, values: [] });

  const counter = options.registry
    ? new Counter({
        name: "resc_webhook_deliveries_total",
        help: "Webhook delivery attempts by subscription and outcome (delivered, retried, failed).",
        labelNames: ["subscription", "outcome"],
        registers: [options.registry],
      })
    : undefined;
  const bySub = new Map(prepared.map((p) => [p.sub.name, p.sub]));
  let stopped = false;
  let running: Promise<void> | undefined;
  let again = false;
  const inFlight = new Set<Promise<void>>();

  const attempt = async (row: Record<string, string | null>): Promise<void> => {
    const sub = bySub.get(row.subscription!);
    if (!sub) return;
    const attempts = Number(row.attempts);
    const id = `${sub.name}.${row.x}.${row.i}`;
    const body = row.payload!;
    let error: string | undefined;
    try {
      // One clock reading for the signature and the header: they must name the same second.
      const now = new Date();
      const signature = new Webhook(sub.secret).sign(id, now, body);
      const res = await fetch(sub.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "webhook-id": id,
          "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
          "webhook-signature": signature,
        },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`;
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    if (error === undefined) {
      await db.query({
        text: `UPDATE ${DELIVERIES_TABLE} SET state = 'delivered', delivered_at = now(), last_error = NULL WHERE id = $1::bigint`,
        values: [row.id!],
      });
      counter?.inc({ subscription: sub.name, outcome: "delivered" });
      // The receiver answers again: what failed while it was away is due now, not at its next slow retry.
      if (row.failed === "true") return;
      const revived = await db.query({
        text: `UPDATE ${DELIVERIES_TABLE} SET next_at = now() WHERE subscription = $1 AND state = 'failed' AND next_at > now()`,
        values: [sub.name],
      });
      if (revived.rowCount > 0) wake();
      return;
    }
    const maxMs = options.retryMaxMs ?? 3_600_000;
    const exhausted = attempts >= (options.maxAttempts ?? 8);
    const delay = exhausted ? maxMs : retryDelay(attempts, options.retryBaseMs ?? 1000, maxMs);
    await db.query({
      text:
        `UPDATE ${DELIVERIES_TABLE} SET state = $2, last_error = $3, ` +
        `next_at = now() + make_interval(secs => $4::double precision) WHERE id = $1::bigint`,
      values: [row.id!, exhausted ? "failed" : "pending", error.slice(0, 500), String(delay / 1000)],
    });
    // "failed" once, when the schedule runs out; the slow attempts after it are retries.
    const outcome = exhausted && row.failed !== "true" ? "failed" : "retried";
    counter?.inc({ subscription: sub.name, outcome });
  };

  /**
   * Claims due deliveries of this node's subscriptions, as many as {@link IN_FLIGHT} leaves room for (a
   * lease: their next attempt is pushed past the POST's timeout), and starts sending them; each one ending
   * wakes the workers again.
   */
  const names = encodeArray(prepared.map((p) => p.sub.name));
  const pass = async (): Promise<void> => {
    const lease = ((options.timeoutMs ?? 10_000) + 5000) / 1000;
    for (;;) {
      const room = IN_FLIGHT - inFlight.size;
      if (room <= 0) return;
      const r = await db.query({
        text:
          `UPDATE ${DELIVERIES_TABLE} AS d SET attempts = d.attempts + 1, next_at = now() + make_interval(secs => $1::double precision) ` +
          `FROM (SELECT id FROM ${DELIVERIES_TABLE} WHERE state <> 'delivered' AND next_at <= now() ` +
          `AND subscription = ANY($2::text[]) ` +
          `ORDER BY next_at, id LIMIT ${room} FOR UPDATE SKIP LOCKED) AS c WHERE d.id = c.id ` +
          `RETURNING d.id::text AS id, d.subscription, d.event_xid::text AS x, d.event_id::text AS i, d.payload, ` +
          `d.attempts::text AS attempts, (d.state = 'failed')::text AS failed`,
        values: [String(lease), names],
      });
      if (r.rows.length === 0) return;
      if (stopped) {
        // Claimed as the dispatcher stopped: handed back as they were, not left to wait out the lease.
        await db.query({
          text:
            `UPDATE ${DELIVERIES_TABLE} SET attempts = attempts - 1, next_at = now() ` +
            `WHERE id = ANY($1::bigint[]) AND state <> 'delivered'`,
          values: [encodeArray(r.rows.map((row) => row.id!))],
        });
        return;
      }
      for (const row of r.rows) {
        const sending: Promise<void> = attempt(row)
          .catch(onError)
          .finally(() => {
            inFlight.delete(sending);
            wake();
          });
        inFlight.add(sending);
      }
      if (r.rows.length < room) return;
    }
  };
  // `again` is set before `running` is looked at, and `running` cleared in the same turn as the loop's last
  // look at `again`: a wake arriving as a pass ends is never lost (it would wait for the poll).
  const wake = (): void => {
    if (stopped) return;
    again = true;
    if (running) return;
    running = (async () => {
      while (again && !stopped) {
        again = false;
        await pass().catch(onError);
      }
      running = undefined;
    })();
  };

  const fanouts: Fanout[] = [];
  try {
    for (const { sub, table, q } of prepared) {
      const scope = await confine(hooks, table, "list", {
        db,
        ...(sub.data !== undefined ? { data: sub.data } : {}),
        ...(sub.principal !== undefined ? { principal: sub.principal } : {}),
      });
      const s: Subscription = {};
      if (q.where) s.where = q.where;
      if (q.search !== undefined) s.search = q.search;
      if (scope) s.scope = scope;
      const select = q.select ?? viewSelect(table);
      if (select) s.select = select;
      const cursor = await db.query({
        text: `SELECT xid::text AS x, id::text AS i FROM ${WEBHOOK_CURSORS_TABLE} WHERE subscription = $1`,
        values: [sub.name],
      });
      const row = cursor.rows[0];
      const after: Position | undefined = row ? { xid: row.x!, id: row.i! } : undefined;
      const fanout: Fanout = new Fanout(
        db,
        sub,
        table.resource!.path.replace(/^\//, ""),
        wake,
        onError,
        (at) => feed.subscribe(table, s, at, fanout),
        options.retryBaseMs ?? 1000,
      );
      fanouts.push(fanout);
      fanout.subscribed = await feed.subscribe(table, s, after, fanout);
      // The first start follows from now, and "now" is saved at once: a process stopped before its first
      // delivery resumes there, instead of from a later now that skips what was written meanwhile.
      if (!row) {
        const mine = fanout.subscribed.position();
        const first = await db.query({
          text:
            `INSERT INTO ${WEBHOOK_CURSORS_TABLE} (subscription, xid, id) VALUES ($1, $2::xid8, $3::bigint) ` +
            `ON CONFLICT (subscription) DO NOTHING RETURNING subscription`,
          values: [sub.name, mine.xid, mine.id],
        });
        if (first.rows.length === 0) {
          // Another node started it first, perhaps from an earlier now: follow from there, or the changes
          // between its start and ours would rest on that node alone, and a position saved here would pass them.
          const other = await db.query({
            text: `SELECT xid::text AS x, id::text AS i FROM ${WEBHOOK_CURSORS_TABLE} WHERE subscription = $1`,
            values: [sub.name],
          });
          const at = other.rows[0];
          if (at && comparePositions({ xid: at.x!, id: at.i! }, mine) < 0) {
            fanout.subscribed.cancel();
            fanout.subscribed = await feed.subscribe(table, s, { xid: at.x!, id: at.i! }, fanout);
          }
        }
      }
    }
  } catch (e) {
    for (const f of fanouts) {
      f.close();
      f.subscribed?.cancel();
    }
    throw e;
  }
  // The position moves on while nothing matches: saved now and then, so a restart does not judge those events again.
  const keep = setInterval(() => {
    for (const f of fanouts) void f.flush();
  }, 5000);
  keep.unref();
  const poll = setInterval(wake, options.pollMs ?? 1000);
  poll.unref();
  wake();
  return {
    async stop() {
      stopped = true;
      clearInterval(keep);
      clearInterval(poll);
      for (const f of fanouts) {
        f.close();
        f.subscribed?.cancel();
      }
      await Promise.all(fanouts.map((f) => f.flush()));
      await running;
      await Promise.all([...inFlight]);
    },
  };
}

/** Longest pause between two attempts to start the dispatcher, in milliseconds. */
const MAX_START_PAUSE_MS = 5000;

/**
 * {@link startWebhooks}, tried again (100 ms, doubling to 5 s) while it
 * fails for any reason but its configuration, each failure told to
 * `options.onError`: a database away when the process starts, or a
 * BeforeQuery hook failing, must not leave the process running without
 * delivery (docs/decisions/1359-webhook-delivery-at-least-once.md).
 * Resolves with the running dispatcher, or undefined once `signal` aborts
 * first or the configuration is refused (told to `onError` too).
 */
export async function keepStartingWebhooks(
  db: Executor,
  service: ServiceDescriptor,
  hooks: Hooks,
  feed: FeedHub,
  options: WebhookOptions,
  signal?: AbortSignal,
): Promise<Webhooks | undefined> {
  const onError = options.onError ?? (() => {});
  let pause = 100;
  for (;;) {
    if (signal?.aborted) return undefined;
    try {
      const started = await startWebhooks(db, service, hooks, feed, options);
      if (!signal?.aborted) return started;
      await started.stop();
      return undefined;
    } catch (e) {
      onError(e instanceof WebhookConfigError ? e : new Error(`webhooks could not start: ${String(e)}`, { cause: e }));
      if (e instanceof WebhookConfigError) return undefined;
    }
    await new Promise<void>((resolve) => {
      // The listener goes with its pause: a start failing for hours must not pile them up on the signal.
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      // Unreferenced: a process that closed its database without aborting `signal` (a test, a script) still exits.
      const timer = setTimeout(done, pause);
      timer.unref();
      signal?.addEventListener("abort", done, { once: true });
    });
    pause = Math.min(pause * 2, MAX_START_PAUSE_MS);
  }
}

/**
 * The lowest saved position of the named subscriptions: the change feed's
 * retention keeps every change at or after it, since a subscription that
 * no node runs now has yet to queue them
 * (docs/decisions/1359-webhook-delivery-at-least-once.md). Undefined when
 * none of them has a position yet (the first start follows from now).
 * @throws the driver's error when the database cannot be reached
 */
export async function webhookRetentionFloor(db: Executor, names: readonly string[]): Promise<Position | undefined> {
  if (names.length === 0) return undefined;
  const exists = await db.query({
    text: "SELECT (to_regclass($1) IS NOT NULL)::text AS e",
    values: [WEBHOOK_CURSORS_TABLE],
  });
  if (exists.rows[0]?.e !== "true") return undefined;
  const r = await db.query({
    text:
      `SELECT xid::text AS x, id::text AS i FROM ${WEBHOOK_CURSORS_TABLE} ` +
      `WHERE subscription = ANY($1::text[]) ORDER BY xid, id LIMIT 1`,
    values: [encodeArray([...names])],
  });
  const row = r.rows[0];
  return row ? { xid: row.x!, id: row.i! } : undefined;
}
