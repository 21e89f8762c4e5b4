/**
 * The client-side bound on a statement's round trip
 * (docs/decisions/0900-database-timeouts.md), kept by one interval timer per
 * executor instead of one timer per statement
 * (docs/decisions/1344-round-trip-watchdog.md).
 *
 * node-postgres's own `query_timeout` arms a `setTimeout` for every query.
 * Under load that timer made every young-generation collection of the
 * server promote the rows of the requests in flight into the old
 * generation (measured in the decision), so collections took three times
 * as long and old-generation garbage piled up. Here arming a connection is
 * one small-integer store on an object that lives as long as the
 * connection: nothing is allocated per statement.
 */

/** A connection the watchdog looks after. */
export interface WatchedConnection {
  /** Tick at which the statement in flight has run too long; 0 when none is in flight. Written only by the watchdog. */
  watchDeadline: number;
  /** Ends the connection at once, so the statement in flight fails; called at most once per armed statement. */
  cutOff(): void;
}

/** The longest pause between two checks, in milliseconds. */
const MAX_TICK_MS = 1000;
/** The shortest pause between two checks, in milliseconds, so a tiny timeout does not spin the event loop. */
const MIN_TICK_MS = 10;

/**
 * Watches connections with a statement in flight and cuts off each whose
 * statement has waited `timeoutMillis` or longer. A statement is never cut
 * before its timeout, and at most about a tenth of it (at most one second)
 * after it: the check runs every tick, and a statement armed in the middle
 * of a tick gets the whole of the last one on top.
 */
export class RoundTripWatchdog {
  private tick = 1;
  /** Ticks a statement may run: the timeout rounded up to whole ticks, plus the tick it was armed in. */
  private readonly span: number;
  /** The connections with a statement in flight: a connection is added and removed, never allocated, per statement. */
  private readonly connections = new Set<WatchedConnection>();
  private readonly timer: ReturnType<typeof setInterval>;

  /** @param timeoutMillis the bound, in milliseconds (> 0) */
  constructor(timeoutMillis: number) {
    const tickMs = Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, Math.ceil(timeoutMillis / 10)));
    this.span = Math.ceil(timeoutMillis / tickMs) + 1;
    this.timer = setInterval(() => this.check(), tickMs);
    // The watchdog never keeps a process alive on its own.
    this.timer.unref();
  }

  /** A statement was sent on `c`: it must be answered within the timeout. */
  arm(c: WatchedConnection): void {
    c.watchDeadline = this.tick + this.span;
    this.connections.add(c);
  }

  /** The statement on `c` was answered (or failed). */
  disarm(c: WatchedConnection): void {
    c.watchDeadline = 0;
    this.connections.delete(c);
  }

  /** Stops the checks (the executor closed). */
  close(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now = ++this.tick;
    for (const c of this.connections) {
      if (c.watchDeadline !== 0 && c.watchDeadline <= now) {
        this.disarm(c);
        c.cutOff();
      }
    }
  }
}
