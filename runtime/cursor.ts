/**
 * Keyset pagination cursors (spec: Pagination rules 2, 3 and 6; List
 * response shape "next_cursor"). A cursor is opaque and not signed: the
 * base64url of a small JSON object naming the resource, the ordering it was
 * made for, the page number it opens and the sort-key values of the last row
 * of the page that issued it. Format and rules: docs/decisions/0500-cursor-format.md.
 *
 * Nothing in a cursor is trusted. Each key value is read with its column's
 * URL codec (runtime/query/codecs.ts) and later bound as a parameter, so a
 * forged cursor can at worst start a page at another position of the same
 * ordering; anything else it carries is a 400 at `query.cursor`.
 */
import type { ColumnDescriptor, SortTerm, TableDescriptor } from "./descriptor.js";
import { badRequest, type ProblemError } from "./problem.js";
import { decodeText } from "./query/codecs.js";
import { encodeScalar } from "./sql/bind.js";

/** Version of the payload layout; a cursor of another version is refused. */
const VERSION = 1;

/**
 * Longest accepted cursor, in characters. Generous enough for four long
 * text keys; it only stops huge garbage from being decoded.
 */
export const MAX_CURSOR_LENGTH = 16384;

/** Where the next page starts: what a valid cursor decodes to. */
export interface CursorPosition {
  /**
   * The sort-key values of the last row of the previous page, one per term
   * of the full ordering (tiebreak included), as bind-parameter text
   * (null for NULL): what `compileList`'s `ListOptions.after` takes.
   */
  after: (string | null)[];
  /** 1-based number of the page this cursor opens (the issuing page's number plus one). */
  page: number;
}

/** The payload inside the base64url text. Short member names keep URLs short. */
interface Payload {
  v: number;
  /** Resource path, e.g. `/films`. */
  r: string;
  /** Ordering signature, see {@link orderingSignature}. */
  o: string;
  /** Page number the cursor opens. */
  p: number;
  /** Sort-key values in codec text form, null for NULL. */
  k: (string | null)[];
}

function resourceName(table: TableDescriptor): string {
  return table.resource?.path ?? table.name;
}

function columnOf(table: TableDescriptor, name: string): ColumnDescriptor {
  const col = table.columns.find((c) => c.name === name);
  if (!col) throw new Error(`relation "${table.name}" has no column "${name}"`);
  return col;
}

/**
 * The ordering signature of a full ordering: each term as `col` or `-col`,
 * followed by ` (nulls last)` or ` (nulls first)` when the column declares a
 * placement, joined by commas, e.g. `-return_date (nulls last),-rental_id`.
 * It covers terms, directions and declared placements, so a changed sort or
 * a changed placement (spec: Sorting, "Changing a placement invalidates
 * outstanding cursors") gives another signature. Throws a plain `Error` for
 * a column the table does not have (sort terms arrive validated).
 */
export function orderingSignature(table: TableDescriptor, sort: readonly SortTerm[]): string {
  return sort
    .map((t) => {
      const nulls = columnOf(table, t.column).nulls;
      return `${t.descending ? "-" : ""}${t.column}${nulls ? ` (nulls ${nulls})` : ""}`;
    })
    .join(",");
}

/**
 * The `sort` parameter that gives the ordering `signature` (an {@link orderingSignature}): its terms without
 * the column's NULLS note and without the trailing primary-key tiebreak the service appends after another
 * term, which a client need not (and, on a key that is not sortable, may not) write.
 */
function sortParam(table: TableDescriptor, signature: string): string {
  const terms = signature.split(",").map((t) => t.replace(/ \(nulls (first|last)\)$/, ""));
  while (terms.length > 1 && table.primaryKey.includes(terms.at(-1)!.replace(/^-/, ""))) terms.pop();
  return terms.join(",");
}

/**
 * Encodes a cursor for the page after the one whose last row had sort-key
 * values `keys` (columns `k0` … of runtime/sql, codec text form).
 *
 * @param sort the full ordering of the request that read that row
 * @param page the number of the page the cursor opens
 * @returns base64url text, safe in a query string without escaping
 */
export function encodeCursor(
  table: TableDescriptor,
  sort: readonly SortTerm[],
  keys: readonly (string | null)[],
  page: number,
): string {
  const payload: Payload = {
    v: VERSION,
    r: resourceName(table),
    o: orderingSignature(table, sort),
    p: page,
    k: [...keys],
  };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

/**
 * The cursor of the page after a page whose last row had the sort-key
 * values `keys` (columns `k0` … of a list statement compiled with
 * `sortKeys`, read with `sortKeyValuesOf`). Same as {@link encodeCursor};
 * kept as the handler's entry point.
 */
export function nextCursor(
  table: TableDescriptor,
  sort: readonly SortTerm[],
  keys: readonly (string | null)[],
  page: number,
): string {
  return encodeCursor(table, sort, keys, page);
}

function refuse(detail: string): ProblemError {
  return badRequest("invalid-query", [{ location: "query.cursor", detail }]);
}

const DAMAGED =
  "cursor is damaged or was not issued by this service; pass next_cursor of the previous response unchanged";

/** Reads the payload, or undefined when the text is not one this module wrote. */
function readPayload(text: string): Payload | undefined {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) return undefined;
  const p = data as Record<string, unknown>;
  const keys = p.k;
  const ok =
    typeof p.v === "number" &&
    typeof p.r === "string" &&
    typeof p.o === "string" &&
    typeof p.p === "number" &&
    Array.isArray(keys) &&
    keys.every((x) => x === null || typeof x === "string");
  return ok ? (p as unknown as Payload) : undefined;
}

/** Spellings the database holds but the URL codecs refuse, accepted per kind so every issued cursor reads back. */
const SPECIAL: Partial<Record<ColumnDescriptor["kind"], readonly string[]>> = {
  float: ["NaN", "Infinity", "-Infinity"],
  numeric: ["NaN", "Infinity", "-Infinity"],
  date: ["infinity", "-infinity"],
  timestamp: ["infinity", "-infinity"],
  timestamptz: ["infinity", "-infinity"],
};

/** The era after a date or timestamp key (` BC`, or ` AD` as `to_char` writes it; decision 1349). */
const ERA = / (BC|AD)$/;

/** Kinds whose keys may carry an era. */
const TEMPORAL: ReadonlySet<ColumnDescriptor["kind"]> = new Set(["date", "timestamp", "timestamptz"]);

/** `time with time zone` as PostgreSQL prints it; the URL codec takes no offset on a time. */
const TIMETZ = /^\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?[+-]\d{2}(?::\d{2}){0,2}$/;

/**
 * One key value of a cursor as bind-parameter text, or a reason to refuse
 * it: NULL only where the column can hold one; otherwise the column's URL
 * codec decides, and the decoded value is re-encoded (canonical text).
 */
function keyValue(
  col: ColumnDescriptor,
  v: string | null,
): { ok: true; text: string | null } | { ok: false; why: string } {
  if (v === null) {
    return col.nullable || col.computed !== undefined
      ? { ok: true, text: null }
      : { ok: false, why: "may not be null" };
  }
  if (SPECIAL[col.kind]?.includes(v)) return { ok: true, text: v };
  const era = ERA.exec(v);
  if (era && TEMPORAL.has(col.kind)) {
    // The codec reads years 1-9999 AD; the era is PostgreSQL's, which reads `… BC` itself (runtime/sql/seek.ts).
    const d = decodeText(col, v.slice(0, era.index));
    if (!d.ok) return { ok: false, why: d.detail };
    return { ok: true, text: `${encodeScalar(d.value)}${era[1] === "BC" ? " BC" : ""}` };
  }
  if (col.kind === "time" && /timetz|time with time zone/i.test(col.sqlType) && TIMETZ.test(v)) {
    return { ok: true, text: v };
  }
  const d = decodeText(col, v);
  return d.ok ? { ok: true, text: encodeScalar(d.value) } : { ok: false, why: d.detail };
}

/** The request whose `?cursor=` is decoded: its full ordering and whether `sort` was given. */
export interface CursorRequest {
  /** Full ordering, primary-key tiebreak included (ListQuery.sort). */
  sort: readonly SortTerm[];
  /** Whether the ordering came from `?sort=` (false: DefaultSort or key order). */
  sortRequested: boolean;
}

/**
 * Decodes `?cursor=` for a list request on `table`.
 *
 * @returns the seek position and the page number the cursor opens
 * @throws ProblemError 400 (`invalid-query`) at `query.cursor` when the
 *   text is not a cursor this service wrote (not base64url, not the JSON
 *   payload, another version, longer than {@link MAX_CURSOR_LENGTH}); when
 *   it was made for another resource; when it was made for another ordering
 *   (the detail names both, spec: Pagination rule 2); when its key values
 *   do not fit the ordering (count, NULL on a NOT NULL column, a value its
 *   column's codec refuses), or its page number is not a positive integer
 */
export function decodeCursor(table: TableDescriptor, request: CursorRequest, text: string): CursorPosition {
  const payload = readPayload(text);
  if (!payload) throw refuse(DAMAGED);
  if (payload.v !== VERSION)
    throw refuse("cursor was issued by another version of this service; start again from the first page");
  const resource = resourceName(table);
  if (payload.r !== resource)
    throw refuse(`cursor was made for ${payload.r}, not ${resource}; start again from the first page`);
  const signature = orderingSignature(table, request.sort);
  if (payload.o !== signature) {
    const how = request.sortRequested ? "" : " (the default order)";
    // The sorts to write, unless they read the same: the difference is then a declared null placement.
    let [made, now] = [sortParam(table, payload.o), sortParam(table, signature)];
    if (made === now) [made, now] = [payload.o, signature];
    throw refuse(
      `cursor was made for sort=${made}; this request sorts by ${now}${how}. ` +
        "Repeat the sort of the request that returned the cursor, or drop cursor to start again",
    );
  }
  if (!Number.isSafeInteger(payload.p) || payload.p < 2) throw refuse(DAMAGED);
  if (payload.k.length !== request.sort.length) throw refuse(DAMAGED);
  const after: (string | null)[] = [];
  for (let i = 0; i < request.sort.length; i++) {
    const col = columnOf(table, request.sort[i].column);
    const r = keyValue(col, payload.k[i]);
    if (!r.ok)
      throw refuse(`cursor is damaged: its value for ${col.name} is refused (${r.why}); pass next_cursor unchanged`);
    after.push(r.text);
  }
  return { after, page: payload.p };
}
