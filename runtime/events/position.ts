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

/** Negative, zero or positive as `a` comes before, at or after `b`. */
export function comparePositions(a: Position, b: Position): number {
  const x = BigInt(a.xid) - BigInt(b.xid);
  if (x !== 0n) return x < 0n ? -1 : 1;
  const i = BigInt(a.id) - BigInt(b.id);
  return i === 0n ? 0 : i < 0n ? -1 : 1;
}
