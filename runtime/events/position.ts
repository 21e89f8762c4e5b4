/**
 * A position in the change feed: the writing transaction's id (`xid8`)
 * and the event's id in the outbox, both unsigned 64-bit integers kept as
 * decimal text. Events are delivered in position order, which never goes
 * back (docs/decisions/1337-change-feed.md). On the wire it is the SSE
 * `id`, `<xid>.<id>`, opaque to clients.
 */

/** One position; compare with {@link comparePositions}. */
export interface Position {
  xid: string;
  id: string;
}

/** The position before every event. */
export const ORIGIN: Readonly<Position> = Object.freeze({ xid: "0", id: "0" });

const WIRE = /^(\d{1,20})\.(\d{1,20})$/;

/** `<xid>.<id>`, the SSE `id` of the event at `p`. */
export function formatPosition(p: Position): string {
  return `${p.xid}.${p.id}`;
}

/** The position an SSE id names, or undefined when `text` is not one (never thrown: the caller answers the 400). */
export function parsePosition(text: string): Position | undefined {
  const m = WIRE.exec(text.trim());
  if (!m) return undefined;
  const xid = BigInt(m[1]!);
  const id = BigInt(m[2]!);
  if (xid >= 2n ** 64n || id >= 2n ** 63n) return undefined;
  return { xid: xid.toString(), id: id.toString() };
}

/** Compares two canonical decimal numbers (no sign, no leading zero): the longer is larger, else by characters. */
function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Negative, zero or positive as `a` comes before, at or after `b`. The
 * parts are canonical decimal text (as PostgreSQL writes them and
 * {@link parsePosition} returns them), compared without parsing: the hub
 * compares positions for every delivery.
 */
export function comparePositions(a: Position, b: Position): number {
  return compareDecimal(a.xid, b.xid) || compareDecimal(a.id, b.id);
}
