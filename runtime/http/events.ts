/**
 * GET /<resource>/events: the change feed of a resource declaring
 * `events = true`, as Server-Sent Events (docs/decisions/1337-change-feed.md).
 * The query takes the list grammar's filters, `search` and `select`, and
 * `last_event_id`; the subscriber's scope is the BeforeQuery predicate of
 * a list, computed once when it subscribes.
 *
 * Each event: `id` (the position, to resume from), `event` (`create`,
 * `update`, `delete`, `leave`) and `data` (the row as a read returns it, or
 * its key alone for `delete` and `leave`). Besides: `reload` (the position
 * resumed from is no longer kept: list again), `reconnect` (the server
 * ends this stream, a slow reader, a shutdown or the caller's token
 * expiring: resume with the last id, and a fresh token;
 * docs/decisions/1367-access-rules.md)
 * and `failed` (the database cannot judge this subscription: its data is
 * the problem document, and the stream ends for good;
 * docs/decisions/1364-feed-isolation.md).
 */
import type { Context } from "hono";
import { Buffer } from "node:buffer";
import {
  PositionAhead,
  type EndReason,
  type FeedEvent,
  type FeedHub,
  type FeedSink,
  type Subscribed,
} from "../events/hub.js";
import { comparePositions, ORIGIN, type Position } from "../events/position.js";
import type { PositionSeal } from "../events/sealed-position.js";
import { problem, type ProblemError } from "../problem.js";
import { parseListQuery } from "../query/index.js";
import { SINGLE } from "../query/parameters.js";
import { viewSelect } from "../access/view.js";
import { principalOf } from "../auth/principal.js";
import { scopeOf, type ResourceContext } from "./context.js";

/** Limits of one stream (docs/decisions/1337-change-feed.md). */
export interface StreamLimits {
  /** A comment this often keeps proxies from closing an idle stream, in milliseconds; default 15000. */
  heartbeatMs?: number;
  /** Events written but not yet taken by the client before the stream is ended; default 1000. */
  bufferEvents?: number;
  /** Bytes of such events; default 1 MiB. */
  bufferBytes?: number;
}

/** The query parameters of the list grammar the feed does not take: it has no pages, order or expansions. */
const REFUSED = new Set([...SINGLE, "expand"].filter((p) => p !== "select" && p !== "search"));

/** What the feed's query takes, for the problem document that refuses anything else. */
const TAKES = ["<column>=<operator>.<value>", "or", "and", "not", "filter", "search", "select", "last_event_id"];

const encoder = new TextEncoder();

/** The `reload` detail for a position the outbox no longer holds. */
const RELOAD_GONE = "The position resumed from is older than the changes this service keeps: list again, then follow.";

/** The `reload` detail for a position in the plain form earlier versions sent (decision 1365). */
const RELOAD_PLAIN =
  "The position resumed from is in the form an earlier version of this service sent, which it no longer reads: " +
  "list again, then follow.";

/** One SSE message; `data` is JSON text on one line; `id` the sealed position (decision 1365). */
function message(event: string, data: string, id?: string): string {
  return `${id ? `id: ${id}\n` : ""}event: ${event}\ndata: ${data}\n\n`;
}

/**
 * A stream the hub writes to and the client reads from: what the client
 * has not taken yet waits here, bounded; past the bound the waiting events
 * are dropped and the stream ends with `reconnect`, so a slow reader costs
 * the server at most the bound and resumes from the last id it did read.
 */
class SseStream implements FeedSink {
  readonly body: ReadableStream<Uint8Array>;
  private queue: string[] = [];
  private bytes = 0;
  /** Events and bytes pushed in this turn of the event loop: the client has had no chance to read them yet. */
  private fresh = { events: 0, bytes: 0 };
  private turn = false;
  private wake: (() => void) | undefined;
  private done = false;
  private heartbeat: NodeJS.Timeout | undefined;
  private expiry: NodeJS.Timeout | undefined;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private subscribed: Subscribed | undefined;

  constructor(
    private readonly limits: Required<StreamLimits>,
    private readonly seal: PositionSeal,
  ) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: async (controller) => {
          while (this.queue.length === 0 && !this.done) await new Promise<void>((r) => (this.wake = r));
          if (this.queue.length === 0) {
            this.finish();
            controller.close();
            return;
          }
          const chunk = this.queue.join("");
          this.queue = [];
          this.bytes = 0;
          this.fresh = { events: 0, bytes: 0 };
          controller.enqueue(encoder.encode(chunk));
        },
        cancel: () => this.finish(),
      },
      { highWaterMark: 0 },
    );
  }

  /**
   * Writes `text` unless the stream is ending. Past the bound, ends it
   * instead: counting only what waited since an earlier turn of the event
   * loop, so a reader that keeps up is never cut off by one burst (a
   * thousand rows written in one statement arrive in one turn).
   */
  push(text: string): void {
    if (this.done) return;
    if (!this.turn) {
      this.turn = true;
      setImmediate(() => {
        this.turn = false;
        this.fresh = { events: 0, bytes: 0 };
      });
    }
    const waiting = this.queue.length - this.fresh.events;
    if (waiting >= this.limits.bufferEvents || this.bytes - this.fresh.bytes >= this.limits.bufferBytes) {
      this.queue = [];
      this.bytes = 0;
      this.end("slow-subscriber");
      return;
    }
    const size = Buffer.byteLength(text);
    this.queue.push(text);
    this.bytes += size;
    this.fresh.events++;
    this.fresh.bytes += size;
    this.wake?.();
  }

  deliver(event: FeedEvent): void {
    this.push(message(event.kind, event.data, this.seal.seal(event.position)));
  }

  reload(position: Position, detail = RELOAD_GONE): void {
    this.push(message("reload", JSON.stringify({ detail }), this.seal.seal(position)));
  }

  end(reason: EndReason, failure?: ProblemError): void {
    if (this.done) return;
    if (reason === "failed" && failure) {
      // Not `reconnect`: resuming would meet the same refusal; the client stops with the problem.
      this.queue.push(message("failed", JSON.stringify(failure.toDocument())));
    } else {
      const detail =
        reason === "slow-subscriber"
          ? `The client read too slowly: more than ${this.limits.bufferEvents} events or ${this.limits.bufferBytes} bytes waited.`
          : reason === "token-expired"
            ? "The token this stream was opened with has expired: reconnect with a fresh one."
            : "The service is stopping.";
      this.queue.push(message("reconnect", JSON.stringify({ reason, detail })));
    }
    this.done = true;
    if (this.expiry) clearTimeout(this.expiry);
    this.subscribed?.cancel();
    this.wake?.();
    // A client that reads nothing more is not waited for.
    setTimeout(() => {
      try {
        this.controller?.error(new Error("the change feed stream was ended"));
      } catch {
        // already closed
      }
    }, 30_000).unref();
  }

  /**
   * A comment: the subscriber's position stays the last one it was sent. The position the hub reached
   * while nothing matched is never sent, since it counts every change captured meanwhile, other tenants'
   * included (docs/decisions/1361-feed-positions-and-client-retries.md).
   */
  private beat(): void {
    if (this.done || this.queue.length > 0) return;
    this.push(": heartbeat\n\n");
  }

  private finish(): void {
    this.done = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (this.expiry) clearTimeout(this.expiry);
    this.expiry = undefined;
    this.subscribed?.cancel();
  }

  /**
   * Once subscribed: the first bytes (how long a client should wait before
   * reconnecting, and the position it starts at), and the heartbeat, started
   * only now so a subscription that failed leaves no timer behind.
   */
  open(subscribed: Subscribed, reload?: string): void {
    this.subscribed = subscribed;
    const at = subscribed.position();
    // The position before every event is never sent: it resumes nothing a client saw.
    const origin = comparePositions(at, ORIGIN) === 0;
    this.push(origin ? "retry: 1000\n\n" : `retry: 1000\nid: ${this.seal.seal(at)}\n\n`);
    if (reload !== undefined) this.reload(at, reload);
    // Already ended (a backlog past the bound before this point): nothing to keep alive.
    if (this.done) return subscribed.cancel();
    this.heartbeat = setInterval(() => this.beat(), this.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * Ends the stream with `reconnect` at `atMs` (milliseconds since the epoch), when the token it was opened
   * with stops being accepted: a stream outliving its token would keep serving a caller the service now
   * refuses (docs/decisions/1367-access-rules.md).
   */
  expireAt(atMs: number): void {
    if (this.done) return;
    // setTimeout's longest delay is 2^31-1 ms; a token living longer is re-armed.
    const delay = Math.min(Math.max(0, atMs - Date.now()), 2 ** 31 - 1);
    this.expiry = setTimeout(() => (Date.now() >= atMs ? this.end("token-expired") : this.expireAt(atMs)), delay);
    this.expiry.unref();
  }
}

/**
 * The handler of `GET <collection>/events` on `feed`; errors propagate to
 * the route's problem mapping (400 for the query, 503 for the database).
 */
export function eventsHandler(
  feed: FeedHub,
  limits: StreamLimits = {},
): (rc: ResourceContext, c: Context) => Promise<Response> {
  const resolved: Required<StreamLimits> = {
    heartbeatMs: limits.heartbeatMs ?? 15_000,
    bufferEvents: limits.bufferEvents ?? 1000,
    bufferBytes: limits.bufferBytes ?? 1024 * 1024,
  };
  return async (rc: ResourceContext, c: Context): Promise<Response> => {
    const params = new URL(c.req.url).searchParams;
    const query = new URLSearchParams();
    const refused: { location: string; detail: string; allowed: string[] }[] = [];
    let resumeText = c.req.header("last-event-id");
    let resumeAt = "header.last-event-id";
    for (const [name, value] of params) {
      if (name === "last_event_id") {
        resumeText = value;
        resumeAt = "query.last_event_id";
      } else if (REFUSED.has(name))
        refused.push({
          location: `query.${name}`,
          detail: `the change feed takes filters, search and select only, not ${name}`,
          allowed: TAKES,
        });
      else query.append(name, value);
    }
    if (refused.length > 0) throw problem("invalid-query", "The change feed cannot take these parameters.", refused);
    const q = parseListQuery(rc.service, rc.table, query);
    let after: Position | undefined;
    // The kind follows where the position came from: the header, or the query's `last_event_id`.
    const refuse = (detail: string): Error =>
      problem(
        resumeAt.startsWith("query.") ? "invalid-query" : "invalid-header",
        "The position to resume from (Last-Event-ID) is not one this service gave.",
        [{ location: resumeAt, detail, value: (resumeText ?? "").slice(0, 64) }],
      );
    const seal = await feed.positionSeal();
    let reload: string | undefined;
    if (resumeText !== undefined && resumeText !== "") {
      const opened = seal.open(resumeText);
      if (opened.kind === "invalid") throw refuse("expected the id of an event of this stream");
      if (opened.kind === "sealed") after = opened.position;
      else reload = RELOAD_PLAIN;
    }
    const scope = await scopeOf(rc, rc.table.name, "list", c);
    // A column the caller's roles may not read is never in an event (docs/decisions/1367-access-rules.md).
    const select = q.select ?? viewSelect(rc.table);
    const stream = new SseStream(resolved, seal);
    const sub = { ...(q.where ? { where: q.where } : {}), ...(q.search !== undefined ? { search: q.search } : {}) };
    let subscription: Subscribed;
    try {
      subscription = await feed.subscribe(
        rc.table,
        { ...sub, ...(scope ? { scope } : {}), ...(select ? { select } : {}) },
        after,
        stream,
      );
    } catch (e) {
      // Waiting for it would deliver nothing, perhaps ever: the client learns at once (decision 1361).
      if (e instanceof PositionAhead)
        throw refuse("this position does not exist yet: no change has been captured there");
      throw e;
    }
    stream.open(subscription, reload);
    // The token's `exp` plus the clock tolerance the verification grants: past it, the token is refused.
    const expiresAt = principalOf(c)?.expiresAt;
    if (expiresAt !== undefined)
      stream.expireAt((expiresAt + (rc.service.auth?.jwt?.clockToleranceSeconds ?? 0)) * 1000);
    c.req.raw.signal.addEventListener("abort", () => subscription.cancel(), { once: true });
    return new Response(stream.body, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  };
}
