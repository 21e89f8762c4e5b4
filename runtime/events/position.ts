/**
 * A position in the change feed: the writing transaction's id (`xid8`)
 * and the event's id in the outbox, both unsigned 64-bit integers kept as
 * decimal text. Events are delivered in position order, which never goes
 * back (docs/decisions/1337-change-feed.md). On the wire (the SSE `id`, a
 * `webhook-id`) it is sealed: runtime/events/sealed-position.ts.
 */

/** One position; compare with {@link comparePositions}. */
export interface Position {
  xid: string;
  id: string;
}

/** The position before every event. */
export const ORIGIN: Readonly<Position> = Object.freeze({ xid: "0", id: "0" });

/** Compares two canonical decimal numbers (no sign, no leading zero): the longer is larger, else by characters. */
function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Negative, zero or positive as `a` comes before, at or after `b`. The
 * parts are canonical decimal text (as PostgreSQL writes them and
 * the seal opens them, runtime/events/sealed-position.ts), compared without parsing: the hub
 * compares positions for every delivery.
 */
export function comparePositions(a: Position, b: Position): number {
  return compareDecimal(a.xid, b.xid) || compareDecimal(a.id, b.id);
}
