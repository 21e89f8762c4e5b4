/**
 * Query-string helpers of the hand-written server: what a developer writes
 * when serving a few endpoints without resc. They accept the same spelling
 * as resc's URL grammar for the parameters the benchmark uses
 * (`col=op.value`, `sort=-a,b`, `page`, `per_page`, `offset`, `cursor`,
 * `expand`), and nothing more.
 */

/** A refusal answered with 400 and `{"error": message}`. */
export class BadRequest extends Error {}

/** `eq.PG` → `["eq", "PG"]`; a bare value means `eq`. */
export function opValue(raw: string): [string, string] {
  const dot = raw.indexOf(".");
  if (dot > 0) {
    const op = raw.slice(0, dot);
    if (/^[a-z]+$/.test(op)) return [op, raw.slice(dot + 1)];
  }
  return ["eq", raw];
}

/** A positive or non-negative integer parameter, or `fallback` when absent. */
export function intParam(value: string | undefined, fallback: number, min: number, name: string): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new BadRequest(`${name} must be an integer of at least ${min}`);
  return Number(value);
}

/** Where a page starts: an offset, or after the sort-key values a cursor carries. */
export interface PageWindow {
  page: number;
  perPage: number;
  offset: number;
  after?: string[];
}

/**
 * The page window: `per_page` (default 25, at most 200), then `cursor`
 * (with `keyCount` key values), `offset` or `page`.
 */
export function paging(q: Record<string, string>, keyCount: number): PageWindow {
  const perPage = Math.min(intParam(q.per_page, 25, 1, "per_page"), 200);
  if (q.cursor !== undefined) {
    if (q.page !== undefined || q.offset !== undefined)
      throw new BadRequest("cursor cannot be combined with page or offset");
    const c = decodeCursor(q.cursor, keyCount);
    return { page: c.page, perPage, offset: 0, after: c.keys };
  }
  const page = intParam(q.page, 1, 1, "page");
  const offset = q.offset !== undefined ? intParam(q.offset, 0, 0, "offset") : (page - 1) * perPage;
  if (offset > 100000) throw new BadRequest("offset too deep: use cursor");
  return { page: q.offset !== undefined ? 1 : page, perPage, offset };
}

/** One ORDER BY term chosen from a fixed list of sortable columns. */
export interface SortTerm {
  column: string;
  descending: boolean;
}

/** `-a,b` or `a.desc,b` → terms; columns outside `sortable` are refused. */
export function sortParam(value: string | undefined, sortable: readonly string[], fallback: SortTerm[]): SortTerm[] {
  if (value === undefined) return fallback;
  return value.split(",").map((term) => {
    let column = term;
    let descending = false;
    if (column.startsWith("-")) [column, descending] = [column.slice(1), true];
    else if (column.endsWith(".desc")) [column, descending] = [column.slice(0, -5), true];
    else if (column.endsWith(".asc")) column = column.slice(0, -4);
    if (!sortable.includes(column)) throw new BadRequest(`cannot sort by ${column}`);
    return { column, descending };
  });
}

/** What a cursor carries: the number of the page it opens and the last row's sort-key values. */
export interface Cursor {
  page: number;
  keys: string[];
}

/** The `next_cursor` text of a cursor: base64url JSON. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

/** Reads a cursor back; refuses anything but a page number and `count` key strings. */
export function decodeCursor(text: string, count: number): Cursor {
  let c: Partial<Cursor>;
  try {
    c = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<Cursor>;
  } catch {
    throw new BadRequest("bad cursor");
  }
  const keys = c.keys;
  if (
    !Number.isSafeInteger(c.page) ||
    !Array.isArray(keys) ||
    keys.length !== count ||
    !keys.every((v) => typeof v === "string")
  ) {
    throw new BadRequest("bad cursor");
  }
  return { page: c.page as number, keys };
}
