/**
 * One node's side of the change feed (docs/decisions/1337-change-feed.md):
 * it follows the outbox every node shares, woken by LISTEN/NOTIFY (with a
 * slow poll besides, for a lost notification), and hands each captured
 * change to the subscribers it matches. Subscriptions that select the same
 * rows the same way share one verdict; one statement per table per wake
 * judges every subscription at once.
 *
 * Delivery order is the position `(xid, id)`, and a change is read only
 * once every transaction before the reading snapshot's horizon has ended
 * (`pg_snapshot_xmin`), so the feed never moves past a change that can
 * still appear behind it: resuming from a position loses nothing and
 * repeats nothing, on any node.
 *
 * A statement PostgreSQL refuses for what one subscription asks of it (a
 * value it cannot compute with, a scope's function failing, a statement
 * timeout) is split until the subscriptions it fails on are found: those
 * end with a problem, the others receive the same changes once and in
 * order (docs/decisions/1364-feed-isolation.md). A database away fails the
 * whole pass, tried again as a whole.
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Executor, Listening, SqlStatement } from "../exec/executor.js";
import { isStatementFailure, type DriverError } from "../exec/faults.js";
import { problem, type ProblemError } from "../problem.js";
import {
  compileMatch,
  projections,
  readMatch,
  subscriptionKey,
  withRange,
  type MatchedChange,
  type Subscription,
} from "./match.js";
import { DEFAULT_EVENT_RETENTION_SECONDS, EVENTS_CHANNEL, EVENTS_TABLE, OUTBOX_OPS } from "./outbox.js";
import { comparePositions, ORIGIN, type Position } from "./position.js";
import { PositionSeal } from "./sealed-position.js";
import { SECRET_NAMES, sharedSecret } from "../secrets.js";

/** What a subscriber receives: one change, as the SSE event carries it. */
export interface FeedEvent {
  kind: (typeof OUTBOX_OPS)[keyof typeof OUTBOX_OPS] | "leave";
  position: Position;
  /**
   * JSON text: the row as a read returns it (create, update), or its key alone (delete, leave). A soft
   * delete is a `delete`, a restored row a `create` (docs/decisions/1337-change-feed.md).
   */
  data: string;
}

/**
 * Why a stream ends before its client leaves: it read too slowly, the service is stopping, the caller's
 * token expired (`token-expired`, which the SSE route itself decides; docs/decisions/1367-access-rules.md),
 * or PostgreSQL cannot judge its subscription (`failed`, which comes with a problem;
 * docs/decisions/1364-feed-isolation.md).
 */
export type EndReason = "slow-subscriber" | "shutdown" | "token-expired" | "failed";

/** Where the hub puts a subscriber's events; the HTTP stream (runtime/http/events.ts) is one. */
export interface FeedSink {
  /** One matching change, in position order. */
  deliver(event: FeedEvent): void;
  /** The position resumed from is older than what the outbox keeps: list again, then follow from `position`. */
  reload(position: Position): void;
  /**
   * The stream ends: the hub is stopping (the client resumes elsewhere), or, `failed`, the database refused
   * to judge this subscription; `failure` is then the problem (a 422 `subscription-failed`), and the
   * subscription is already cancelled, its position left where the refused changes begin.
   */
  end(reason: EndReason, failure?: ProblemError): void;
}

/**
 * Thrown by {@link FeedHub.subscribe} for a resume position no service can have given: its transaction
 * or its outbox id does not exist yet (docs/decisions/1361-feed-positions-and-client-retries.md). The
 * HTTP route answers it 400, naming where the position came from.
 */
export class PositionAhead extends Error {
  constructor(readonly position: Position) {
    super(`position ${position.xid}.${position.id} does not exist yet`);
    this.name = "PositionAhead";
  }
}

/** A subscription made by {@link FeedHub.subscribe}. */
export interface Subscribed {
  /** Every change up to here has been judged for this subscriber (its resume point when nothing matched). */
  position(): Position;
  /** Stops delivery; safe to call twice. */
  cancel(): void;
}

/** Options of {@link FeedHub}. Times are milliseconds. */
export interface FeedHubOptions {
  /** How long captured changes are kept, in seconds (docs/decisions/1337-change-feed.md); default 24 hours. */
  retentionSeconds?: number;
  /** The poll that runs besides LISTEN, catching a lost notification; default 1000. */
  pollMs?: number;
  /** Told about each failure reading the outbox (the hub keeps trying). */
  onError?: (e: unknown) => void;
}

/** Outbox rows read per step. */
const BATCH = 1000;
/** Subscriptions judged per statement: one statement is one round trip (each costs system calls on both sides), and 500 subscriptions of at most 24 filters stay far below the 65,535 bind parameters a statement may carry. */
const CHUNK = 500;

interface Member {
  table: TableDescriptor;
  sub: Subscription;
  key: string;
  position: Position;
  sink: FeedSink;
  live: boolean;
  cancelled: boolean;
}

/** Up to {@link CHUNK} subscriptions judged by one statement. */
interface Chunk {
  groups: Group[];
  subs: Subscription[];
  /** Each subscription's projection index. */
  of: number[];
  /** How many distinct projections. */
  projections: number;
  statement: SqlStatement;
}

interface Group {
  key: string;
  sub: Subscription;
  members: Set<Member>;
}

/** The feed of one database for one node; see the module comment. */
export class FeedHub {
  private readonly groups = new Map<string, Map<string, Group>>();
  private readonly joining = new Set<Member>();
  private members = 0;
  private head: Position | undefined;
  private starting: Promise<void> | undefined;
  private listening: Promise<Listening | undefined> | undefined;
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private withheldPause = 20;
  /** Per table, its subscriptions in chunks with their statements, and the {@link version} they were built at. */
  private readonly plans = new Map<string, { version: number; chunks: Chunk[] }>();
  /** Moves whenever a subscription (a group) is added or removed. */
  private version = 0;
  private closed = false;
  private seal: Promise<PositionSeal> | undefined;

  constructor(
    private readonly db: Executor,
    private readonly service: ServiceDescriptor,
    private readonly options: FeedHubOptions = {},
  ) {}

  /**
   * Subscribes `sink` to the changes of `table` that `sub` selects, after
   * position `after` (a resumed stream) or from now. An `after` the outbox
   * no longer holds gets one `reload` first. Resolves once the subscriber
   * is placed; its backlog, if any, follows asynchronously.
   * @throws a 503 `retry` problem once the hub is closed; {@link PositionAhead} when `after` does not exist yet; the driver's error when the outbox cannot be read (answered 503 by the caller)
   */
  async subscribe(
    table: TableDescriptor,
    sub: Subscription,
    after: Position | undefined,
    sink: FeedSink,
  ): Promise<Subscribed> {
    // A 503: the client reconnects, to another node or to this one once it is back.
    if (this.closed) throw problem("retry", "The service is stopping; reconnect with the last event id.");
    // Counted before the first await: another subscriber leaving meanwhile must not stop the hub under this one.
    this.members++;
    let head: Position;
    let position: Position;
    try {
      await this.start();
      head = this.head!;
      position = head;
      if (after !== undefined) {
        const found = await this.locate(after);
        if (found === "ahead") throw new PositionAhead(after);
        if (found === "kept") position = after;
        else sink.reload(head);
      }
    } catch (e) {
      this.members--;
      if (this.members === 0 && !this.closed) void this.stop().catch((err) => this.fail(err));
      throw e;
    }
    const m: Member = {
      table,
      sub,
      key: subscriptionKey(table, sub),
      position,
      sink,
      live: false,
      cancelled: false,
    };
    if (comparePositions(position, head) >= 0) this.join(m);
    else
      void this.catchUp(m).catch((e: unknown) => {
        this.fail(e);
        // The loop's pass sends the rest of the backlog, and tries again while the database is away.
        this.join(m);
      });
    return {
      // A live member has seen everything up to the head, unless it resumed further on.
      position: () => (m.live && this.head && comparePositions(this.head, m.position) > 0 ? this.head : m.position),
      cancel: () => this.leave(m),
    };
  }

  /**
   * How this database's positions are sealed on the wire (docs/decisions/1365-opaque-feed-positions.md):
   * under the secret every node of the service shares, made by the first node that asks.
   * @throws {@link SecretUnavailable} (from runtime/secrets.ts) when the secret can neither be read nor made
   */
  async positionSeal(): Promise<PositionSeal> {
    this.seal ??= sharedSecret(this.db, SECRET_NAMES.feedPositions).then((secret) => new PositionSeal(secret));
    return this.seal.catch((e: unknown) => {
      this.seal = undefined;
      throw e;
    });
  }

  /** Ends every stream and stops listening; the hub cannot be used again. */
  async close(): Promise<void> {
    this.closed = true;
    // Ending a stream cancels its subscription, which edits these collections: end from a copy.
    const everyone = [...this.joining];
    for (const byKey of this.groups.values()) for (const g of byKey.values()) everyone.push(...g.members);
    for (const m of everyone) m.sink.end("shutdown");
    this.groups.clear();
    this.joining.clear();
    await this.stop();
  }

  /**
   * Deletes changes older than the retention window, a batch at a time; the
   * newest is always kept, and so is every change at or after `keepFrom`
   * (the lowest webhook position: changes a subscription has yet to queue,
   * docs/decisions/1359-webhook-delivery-at-least-once.md).
   */
  async purge(keepFrom?: Position): Promise<number> {
    const seconds = this.options.retentionSeconds ?? DEFAULT_EVENT_RETENTION_SECONDS;
    const floor = keepFrom ? ` AND (xid, id) < ($2::xid8, $3::bigint)` : "";
    let total = 0;
    for (;;) {
      const r = await this.db.query({
        text:
          `DELETE FROM ${EVENTS_TABLE} WHERE id IN (SELECT id FROM ${EVENTS_TABLE} ` +
          `WHERE at < now() - make_interval(secs => $1::double precision) ` +
          `AND id <> (SELECT max(id) FROM ${EVENTS_TABLE})${floor} LIMIT 5000)`,
        values: keepFrom ? [String(seconds), keepFrom.xid, keepFrom.id] : [String(seconds)],
      });
      total += r.rowCount;
      if (r.rowCount < 5000) return total;
    }
  }

  /** Reads the head, listens and starts the poll, once for as long as there are subscribers. */
  private start(): Promise<void> {
    this.starting ??= (async () => {
      const r = await this.db.query({
        text:
          `SELECT xid::text AS x, id::text AS i FROM ${EVENTS_TABLE} ` +
          `WHERE xid < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY xid DESC, id DESC LIMIT 1`,
        values: [],
      });
      const row = r.rows[0];
      this.head = row ? { xid: row.x!, id: row.i! } : { ...ORIGIN };
      this.listening = this.db.listen
        ? this.db
            .listen(EVENTS_CHANNEL, () => this.wake())
            .catch((e: unknown) => {
              this.fail(e);
              return undefined;
            })
        : Promise.resolve(undefined);
      this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 1000);
      this.timer.unref();
    })().catch((e: unknown) => {
      this.starting = undefined;
      throw e;
    });
    return this.starting;
  }

  private async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.timer = this.retry = undefined;
    const listening = this.listening;
    this.listening = undefined;
    this.starting = undefined;
    this.head = undefined;
    await (await listening)?.close();
  }

  private fail(e: unknown): void {
    this.options.onError?.(e);
  }

  /**
   * Where `p` stands (docs/decisions/1361-feed-positions-and-client-retries.md): `kept`, the outbox holds
   * its change (a resume point; a node behind the writer's reads it later); `ahead`, its transaction id or
   * its outbox id has not been handed out yet, so no service gave it; `gone`, neither (purged, or never a change).
   */
  private async locate(p: Position): Promise<"kept" | "ahead" | "gone"> {
    if (p.xid === ORIGIN.xid && p.id === ORIGIN.id) return "kept";
    // Assigned ids only grow (the sequence survives a purge, a rollback and a crash), so "ahead" never turns back.
    const r = await this.db.query({
      text:
        `SELECT EXISTS (SELECT 1 FROM ${EVENTS_TABLE} WHERE xid = $1::xid8 AND id = $2::bigint)::text AS k, ` +
        `($1::xid8 >= pg_snapshot_xmax(pg_current_snapshot()) OR $2::bigint > coalesce(pg_sequence_last_value(` +
        `pg_get_serial_sequence('${EVENTS_TABLE}', 'id')::regclass), 0))::text AS a`,
      values: [p.xid, p.id],
    });
    const row = r.rows[0];
    return row?.k === "true" ? "kept" : row?.a === "true" ? "ahead" : "gone";
  }

  private join(m: Member): void {
    if (m.cancelled) return;
    this.joining.add(m);
    this.wake();
  }

  private leave(m: Member): void {
    if (m.cancelled) return;
    m.cancelled = true;
    this.members--;
    this.joining.delete(m);
    const byKey = this.groups.get(m.table.name);
    const g = byKey?.get(m.key);
    if (g) {
      g.members.delete(m);
      if (g.members.size === 0) {
        byKey!.delete(m.key);
        this.version++;
      }
    }
    if (this.members === 0 && !this.closed) void this.stop().catch((e) => this.fail(e));
  }

  /**
   * Sends `m` what it missed, in steps of {@link BATCH}, outside the wake
   * loop (so one long backlog does not hold everyone else's changes back),
   * then hands it to the loop, which sends the last few and makes it live.
   */
  private async catchUp(m: Member): Promise<void> {
    while (!m.cancelled && this.head && comparePositions(m.position, this.head) < 0) {
      const got = await this.backlogOrEnd(m, this.head);
      if (got === undefined) return;
      if (got < BATCH) break;
    }
    this.join(m);
  }

  /**
   * {@link backlog}, ending `m` alone when PostgreSQL refuses its statement;
   * returns how many changes were read, or undefined once `m` is ended.
   * @throws the driver's error for any other failure (the database away)
   */
  private async backlogOrEnd(m: Member, upTo: Position): Promise<number | undefined> {
    try {
      return await this.backlog(m, upTo);
    } catch (e) {
      if (!isStatementFailure(e)) throw e;
      this.endFailed(m.table, [m], e, m.position);
      return undefined;
    }
  }

  /** One step of a backlog: changes of `m`'s table after its position up to `upTo`; returns how many were read. */
  private async backlog(m: Member, upTo: Position): Promise<number> {
    const stmt = compileMatch(m.table, [m.sub], m.position, upTo, BATCH);
    const r = await this.db.query(stmt);
    for (const row of r.rows) this.dispatch(readMatch(row, 1, 1), [m.sub], [0], (i) => (i === 0 ? [m] : []));
    m.position = r.rows.length < BATCH ? upTo : { xid: r.rows.at(-1)!.x!, id: r.rows.at(-1)!.i! };
    return r.rows.length;
  }

  /** Asks for one more pass of the loop; passes never overlap. */
  private wake(): void {
    if (this.closed || this.head === undefined) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  /** Passes while woken; `running` is cleared in the turn that last looks at `again`, so no wake falls between. */
  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (e) {
        // The poll tries again; a wake that came meanwhile is not run at once against a failing database.
        this.fail(e);
        break;
      }
    } while (this.again && !this.closed);
    this.running = false;
  }

  /** Makes joiners live, then reads what committed since the head and delivers it. */
  private async pass(): Promise<void> {
    const head = this.head;
    if (!head) return;
    for (const m of [...this.joining]) {
      while (!m.cancelled && comparePositions(m.position, head) < 0) {
        const got = await this.backlogOrEnd(m, head);
        if (got === undefined || got < BATCH) break;
      }
      this.joining.delete(m);
      if (m.cancelled) continue;
      m.live = true;
      let byKey = this.groups.get(m.table.name);
      if (!byKey) this.groups.set(m.table.name, (byKey = new Map()));
      let g = byKey.get(m.key);
      if (!g) {
        byKey.set(m.key, (g = { key: m.key, sub: m.sub, members: new Set() }));
        this.version++;
      }
      g.members.add(m);
    }
    // One round trip: the committed changes past the head that no running transaction can precede, and whether
    // others wait behind an older transaction still running (which, ending without a write, wakes no one).
    const r = await this.db.query({
      text:
        `SELECT r.x, r.i, r.tbl, w.w FROM (SELECT (EXISTS (SELECT 1 FROM ${EVENTS_TABLE} ` +
        `WHERE (xid, id) > ($1::xid8, $2::bigint) AND xid >= pg_snapshot_xmin(pg_current_snapshot())))::text AS w) AS w ` +
        `LEFT JOIN LATERAL (SELECT xid::text AS x, id::text AS i, tbl FROM ${EVENTS_TABLE} ` +
        `WHERE (xid, id) > ($1::xid8, $2::bigint) AND xid < pg_snapshot_xmin(pg_current_snapshot()) ` +
        `ORDER BY xid, id LIMIT ${BATCH}) AS r ON true`,
      values: [head.xid, head.id],
    });
    const rows = r.rows.filter((row) => row.x !== null);
    if (rows.length > 0) {
      const last = rows.at(-1)!;
      const upTo: Position = { xid: last.x!, id: last.i! };
      const tables = new Set(rows.map((row) => row.tbl!));
      for (const name of tables) await this.deliverTable(name, head, upTo);
      // Unless the hub stopped meanwhile (its last subscriber left): a later start reads the head again.
      if (this.head !== head) return;
      this.head = upTo;
      if (rows.length === BATCH) this.again = true;
    }
    if (rows.length < BATCH) this.watchWithheld(r.rows[0]?.w === "true");
  }

  /**
   * Changes that committed but wait behind an older transaction still
   * running wake no one when that transaction ends without writing: look
   * again soon (20 ms, doubling to the poll interval) while any wait.
   */
  private watchWithheld(waiting: boolean): void {
    if (!waiting) {
      this.withheldPause = 20;
      return;
    }
    if (this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, this.withheldPause);
    this.retry.unref();
    this.withheldPause = Math.min(this.withheldPause * 2, this.options.pollMs ?? 1000);
  }

  /** Judges every live subscription of table `name` on its changes in (`after`, `upTo`] and delivers. */
  private async deliverTable(name: string, after: Position, upTo: Position): Promise<void> {
    const byKey = this.groups.get(name);
    const table = this.service.tables.find((t) => t.name === name);
    if (!byKey || byKey.size === 0 || !table) return;
    const plan = this.planFor(table, byKey);
    // The chunks' statements run at once (each subscriber is in one chunk, so its order holds), on as many
    // connections as the pool lends; the deliveries follow in chunk order.
    const results = await Promise.allSettled(plan.map((c) => this.db.query(withRange(c.statement, after, upTo))));
    // The database away fails the pass, tried again as a whole: nothing of this range has been delivered yet.
    for (const r of results) if (r.status === "rejected" && !isStatementFailure(r.reason)) throw r.reason;
    const judged: { chunk: Chunk; rows: Record<string, string | null>[] }[] = [];
    const failed: { group: Group; error: unknown }[] = [];
    for (let i = 0; i < plan.length; i++) {
      const r = results[i]!;
      if (r.status === "fulfilled") judged.push({ chunk: plan[i]!, rows: r.value.rows });
      else await this.isolate(table, plan[i]!.groups, r.reason, after, upTo, judged, failed);
    }
    // Delivered only once every part is judged: a pass failing midway repeats nothing when it runs again.
    for (const { chunk: c, rows } of judged)
      for (const row of rows)
        this.dispatch(readMatch(row, c.subs.length, c.projections), c.subs, c.of, (g) => c.groups[g]!.members);
    for (const { group, error } of failed) this.endFailed(table, [...group.members], error, after);
  }

  /**
   * Finds which of `groups`, whose statement PostgreSQL refused with `error`, it refuses: halves are judged
   * on the same range, each refused half halved again, down to one group. The parts judged go to `judged`,
   * the groups refused alone to `failed`; a failing half costs a statement per level, and the rest are
   * judged as they would have been.
   * @throws the driver's error when a statement fails for any other reason than what it computes
   */
  private async isolate(
    table: TableDescriptor,
    groups: Group[],
    error: unknown,
    after: Position,
    upTo: Position,
    judged: { chunk: Chunk; rows: Record<string, string | null>[] }[],
    failed: { group: Group; error: unknown }[],
  ): Promise<void> {
    if (groups.length === 1) {
      failed.push({ group: groups[0]!, error });
      return;
    }
    const middle = Math.ceil(groups.length / 2);
    for (const half of [groups.slice(0, middle), groups.slice(middle)]) {
      const chunk = chunkOf(table, half);
      try {
        const r = await this.db.query(withRange(chunk.statement, after, upTo));
        judged.push({ chunk, rows: r.rows });
      } catch (e) {
        if (!isStatementFailure(e)) throw e;
        await this.isolate(table, half, e, after, upTo, judged, failed);
      }
    }
  }

  /**
   * Ends `members`, whose statement PostgreSQL refused with `error` on the changes after `from`: each is
   * told the problem, and its position stays at `from` (or where it resumed, further on), so a webhook
   * resubscribing from it misses nothing. The operator is told too, through `onError`.
   */
  private endFailed(table: TableDescriptor, members: Member[], error: unknown, from: Position): void {
    const failure = subscriptionFailed(table, error);
    this.fail(new Error(`change feed: a subscription of ${table.name} ended: ${failure.message}`, { cause: error }));
    for (const m of members) {
      if (m.cancelled) continue;
      if (comparePositions(from, m.position) > 0) m.position = from;
      m.live = false;
      this.leave(m);
      m.sink.end("failed", failure);
    }
  }

  /**
   * The chunks of `table`'s subscriptions with their compiled statements, built again only when a
   * subscription is added or removed (each wake would otherwise compile and key them anew).
   */
  private planFor(table: TableDescriptor, byKey: Map<string, Group>): Chunk[] {
    const cached = this.plans.get(table.name);
    if (cached && cached.version === this.version) return cached.chunks;
    const all = [...byKey.values()];
    const chunks: Chunk[] = [];
    for (let start = 0; start < all.length; start += CHUNK)
      chunks.push(chunkOf(table, all.slice(start, start + CHUNK)));
    this.plans.set(table.name, { version: this.version, chunks });
    return chunks;
  }

  /**
   * The events one change makes (docs/decisions/1337-change-feed.md), per subscription:
   * - a delete, or an update marking a soft-deleted row (the mark went from unset to set): `delete` (the
   *   key) for one the row matched before, whatever it matches after, since the row is gone for every read;
   * - an update restoring a marked row: `create` for one it matches after;
   * - a create, or an update the row matches after: `create` or `update`, the row as that subscription
   *   projects it; none for an update the row matched before too when that projection did not change
   *   (only columns it does not receive did);
   * - an update the row matched only before: `leave` (the key).
   * A member already past the change (it resumed further on) gets nothing.
   */
  private dispatch(
    c: MatchedChange,
    subs: readonly Subscription[],
    of: readonly number[],
    members: (i: number) => Iterable<Member>,
  ): void {
    for (let i = 0; i < subs.length; i++) {
      let event: FeedEvent | undefined;
      const p = of[i]!;
      if (c.op === "d" || c.soft === "marked") {
        if (c.before[i]) event = { kind: "delete", position: c.position, data: c.key };
      } else if (c.after[i]) {
        const kind = c.soft === "restored" ? "create" : OUTBOX_OPS[c.op];
        if (kind === "update" && c.before[i] && c.same[p]) continue;
        event = { kind, position: c.position, data: c.rows[p]! };
      } else if (c.op === "u" && c.before[i]) {
        event = { kind: "leave", position: c.position, data: c.key };
      }
      if (!event) continue;
      for (const m of members(i)) {
        if (m.cancelled || comparePositions(c.position, m.position) <= 0) continue;
        m.sink.deliver(event);
      }
    }
  }
}

/** `groups` (at most {@link CHUNK}) judged by one statement, compiled for any range ({@link withRange}). */
function chunkOf(table: TableDescriptor, groups: Group[]): Chunk {
  const subs = groups.map((g) => g.sub);
  const { of } = projections(subs);
  return {
    groups,
    subs,
    of,
    projections: Math.max(...of) + 1,
    statement: compileMatch(table, subs, ORIGIN, ORIGIN, BATCH),
  };
}

/** What PostgreSQL's refusal of a statement means, in words; its message is never echoed (it may quote SQL). */
function refusal(code: string): string {
  if (code === "57014") return "ran past the statement timeout";
  if (code.startsWith("22")) return "met a value the database cannot compute with";
  if (code.startsWith("54")) return "went past a limit of the database";
  return "was refused by the database";
}

/**
 * The problem a subscription PostgreSQL cannot judge ends with: a 422, since the same subscription would
 * be refused again on the same change; the SQLSTATE tells the operator where to look.
 */
function subscriptionFailed(table: TableDescriptor, error: unknown): ProblemError {
  const code = String((error as DriverError).code);
  const resource = table.resource?.path ?? table.name;
  return problem(
    "subscription-failed",
    `Judging this subscription's filters and scope on a change of ${resource} ${refusal(code)} ` +
      `(SQLSTATE ${code}), and would again on that change: change the filters, or tell the service's operator.`,
  );
}
