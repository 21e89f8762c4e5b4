/**
 * Row objects of lists and reads, written in Node from what PostgreSQL
 * sends (docs/decisions/0805-row-members-as-json-array.md): the scalar
 * members as one JSON array, `json_build_array(…)` in column `j`
 * (PostgreSQL writes and escapes each value with its output function, no
 * cast per column; docs/decisions/1342-members-with-json-build-array.md),
 * and each member that already is JSON (arrays, documents, expansions) in
 * a column of its own, `x0`, `x1`, …
 * {@link encodeRow} writes the object with the forms of decision 0400; the
 * text is the one `row_to_json` writes for the same row
 * (`test/sql/members.test.ts`).
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import type { SqlStatement } from "../exec/executor.js";
import { columnRef } from "./column.js";
import {
  COLLECTION_KEYS,
  outputColumns,
  outputExpr,
  resourceComputed,
  temporalValue,
  type OutputEntry,
} from "./output.js";
import { projectionKey, SchemaCache } from "./schema-cache.js";
import type { SortKeyText } from "./seek.js";

/**
 * How a member's element of `j` (as `json_build_array` writes it) becomes
 * the member's JSON: `json` as it is (numbers, booleans, strings, and the
 * quoted `NaN` and `Infinity` of floats, all as `row_to_json` writes them),
 * `array` as it is too (an array of scalars, which is never the text of a
 * sort key), `quoted` as a JSON string (a numeric's number, decision 0400), `clock`
 * and `clockZ` from the string `to_json` wrote for a `timestamp` (with
 * ` BC` after years before 1 AD, or `infinity`): the ISO text without its
 * era, followed by `Z` for `clockZ` when finite (decisions 0803 and
 * docs/decisions/1342-members-with-json-build-array.md).
 */
export type MemberForm = "json" | "array" | "quoted" | "clock" | "clockZ";

/**
 * One member of a row object: its name, its key written as `"name":`, and
 * where its value is: an element of `j`, a column holding its JSON, or
 * the two columns of an inverse collection (`items`, a JSON array, and
 * `more`, `true` or `false`; decision 1343). With `rows`, the column holds
 * an expanded row (or `items` the rows) as the JSON array of its members,
 * which Node writes as objects with those members
 * (docs/decisions/1346-expanded-rows-as-member-arrays.md).
 */
export type Member =
  | ElementMember
  | { name: string; prefix: string; column: string; rows?: readonly ElementMember[] }
  | { name: string; prefix: string; collection: { items: string; more: string }; rows?: readonly ElementMember[] };

/** A member whose value is an element of `j`. */
export interface ElementMember {
  name: string;
  prefix: string;
  element: number;
  form: MemberForm;
}

/**
 * Where one extra text of a row (a list's sort key) is: element `element`
 * of `j`, a member whose JSON holds the very text or, with `clock`, a date
 * or timestamp member whose ISO text becomes the key's text (decision
 * 1349); or element `k` of column `k`.
 */
export type ExtraSource = { element: number; clock?: "clock" | "clockZ" } | { k: number };

/** How to read the rows of a statement built with {@link memberSelect}. */
export interface RowLayout {
  members: readonly Member[];
  /**
   * What precedes each member's value in the row object: `{"name":` for
   * the first, `,"name":` for the others. Built with the layout, so writing
   * a row allocates no key text (docs/decisions/1351-written-rows-as-members.md).
   */
  leads: readonly string[];
  /** The extra texts (the sort keys of a list), in order; empty when the statement selects none. */
  extras: readonly ExtraSource[];
}

/** A statement whose rows carry row objects laid out by `layout`. */
export interface RowStatement extends SqlStatement {
  layout: RowLayout;
}

/** One member as SQL: an element of `j` or a column of its own (JSON text). */
interface MemberSql {
  name: string;
  /** An argument of `json_build_array`, or a column's JSON text when `form` is absent. */
  sql: string;
  /** Absent for a JSON column. */
  form?: MemberForm;
  /** The member's JSON text as a column of its own, for an element past `j`'s room ({@link MAX_ELEMENTS}). */
  column?: string;
}

/** Arguments `json_build_array` takes at most (PostgreSQL's FUNC_MAX_ARGS); further members become columns. */
const MAX_ELEMENTS = 100;

/** Kinds whose arrays are formatted element by element in a subquery (output.ts) or are documents: columns of their own. */
const FORMATTED_ARRAYS: ReadonlySet<ColumnDescriptor["kind"]> = new Set([
  "date",
  "timestamptz",
  "timestamp",
  "bytea",
  "jsonb",
]);

/** `character(n)` (cast type `bpchar`), whose padding a cast to text would trim. */
function padded(col: ColumnDescriptor): boolean {
  return /^(bpchar|character|char)(\(|$)/i.test(col.sqlType);
}

/**
 * The SQL of column `col` of the row aliased `alias` as a member. Scalars
 * go into `json_build_array` bare: it writes each with the type's output
 * function the way `row_to_json` does, and needs no cast to text per
 * column, whose setup PostgreSQL repeats on every execution (decision 1342).
 */
function columnMember(col: ColumnDescriptor, alias: string): MemberSql {
  const name = col.name;
  const ref = columnRef(col, alias);
  const column = `to_json(${outputExpr(col, alias)})::text`;
  if (col.kind === "other" || (col.kind === "text" && padded(col))) return { name, sql: column };
  if (col.array) {
    // Arrays whose elements need no formatting of their own (output.ts) are elements too; json_build_array
    // writes them as to_json does. Date-like and bytea arrays are formatted per element in a subquery.
    return FORMATTED_ARRAYS.has(col.kind)
      ? { name, sql: column }
      : { name, sql: outputExpr(col, alias), form: "array", column };
  }
  switch (col.kind) {
    case "jsonb":
      return { name, sql: `(${ref})::text` };
    case "numeric":
      return { name, sql: ref, form: "quoted", column };
    case "date":
    case "timestamptz":
    case "timestamp":
      // Bare: json_build_array writes the ISO text to_json would; the era and the Z are Node's (decisions 1342, 1349).
      return { name, sql: temporalValue(col.kind, ref), form: col.kind === "timestamp" ? "clock" : "clockZ", column };
    case "bytea":
      // Base64 text (output.ts), a JSON string.
      return { name, sql: outputExpr(col, alias), form: "json", column };
    default:
      // integer, bigint, boolean, float, text, enum, uuid, time.
      return { name, sql: ref, form: "json", column };
  }
}

/** A row object's select list and layout, before extra elements are added. */
export interface RowMembers {
  /** Member elements' SQL, in order: the arguments of `json_build_array` in `j`. */
  elements: readonly string[];
  /** JSON columns' SQL, in order (`x0`, `x1`, …). */
  columns: readonly string[];
  members: readonly Member[];
  /** The `LEFT JOIN`s the JSON columns read from (a list page's expansions), in order; absent for none. */
  joins?: readonly string[];
}

function build(entries: readonly MemberSql[]): RowMembers {
  const elements: string[] = [];
  const columns: string[] = [];
  const members: Member[] = [];
  for (const e of entries) {
    const prefix = `${JSON.stringify(e.name)}:`;
    if (e.form === undefined || elements.length === MAX_ELEMENTS) {
      members.push({ name: e.name, prefix, column: `x${columns.length}` });
      columns.push(e.form === undefined ? e.sql : (e.column ?? e.sql));
    } else {
      members.push({ name: e.name, prefix, element: elements.length, form: e.form });
      elements.push(e.sql);
    }
  }
  return { elements, columns, members };
}

const membersCache = new SchemaCache<TableDescriptor, RowMembers>();

/**
 * The members of the row object of `table` aliased `alias` with projection
 * `select` (`outputColumns`). Depends on the descriptor only, so it is built
 * once per table and projection (decision 0802).
 */
export function tableMembers(table: TableDescriptor, alias: string, select?: readonly string[]): RowMembers {
  return membersCache.get(table, projectionKey(alias, select), () =>
    build(outputColumns(table, resourceComputed(table), select).map((c) => columnMember(c, alias))),
  );
}

/** The members of `row`, every one an element of `j` (expand.ts sends a target row as an array only then). */
function elementMembers(row: RowMembers): ElementMember[] {
  return row.members.map((m) => {
    if (!("element" in m)) throw new Error(`member ${m.name} is not an element of the row's array`);
    return m;
  });
}

/**
 * `row` followed by JSON members: expansions, whose SQL is a `json` value,
 * or, for a page's inverse collection, its items and `has_more` in two
 * columns that Node puts together (decision 1343).
 */
export function withJsonMembers(row: RowMembers, extra: readonly OutputEntry[]): RowMembers {
  if (extra.length === 0) return row;
  const columns = [...row.columns];
  const members = [...row.members];
  const joins = [...(row.joins ?? [])];
  for (const e of extra) {
    const prefix = `${JSON.stringify(e.name)}:`;
    // The layout of the target's member arrays: alias-free, so any alias's cached members serve.
    const rows = e.elementsOf === undefined ? {} : { rows: elementMembers(tableMembers(e.elementsOf, "c")) };
    if (e.collection !== undefined) {
      members.push({
        name: e.name,
        prefix,
        collection: { items: `x${columns.length}`, more: `x${columns.length + 1}` },
        ...rows,
      });
      columns.push(`(${e.collection.items})::text`, `(${e.collection.more})::text`);
    } else {
      members.push({ name: e.name, prefix, column: `x${columns.length}`, ...rows });
      columns.push(`(${e.sql})::text`);
    }
    if (e.join !== undefined) joins.push(e.join);
  }
  return { elements: row.elements, columns, members, ...(joins.length > 0 ? { joins } : {}) };
}

/**
 * The select list of `row` and its layout: `json_build_array(…)::text AS
 * "j"`, then `<sql> AS "x0"`, …, then, for the `extra` texts (a list's
 * sort keys) that no member of `j` already holds,
 * `array_to_json(ARRAY[…]::text[])::text AS "k"`.
 */
export function memberSelect(row: RowMembers, extra: readonly SortKeyText[] = []): { list: string; layout: RowLayout } {
  // The same members and keys give the same text: built once (decision 0802), a few orderings per table.
  const key = extra.map((e) => `${e.sql}\u0001${e.column ?? ""}`).join("\u0000");
  return selects.get(row, key, () => buildSelect(row, extra));
}

const selects = new SchemaCache<RowMembers, { list: string; layout: RowLayout }>();

/**
 * The element of `j` that holds the sort key of `column`: a `json` or
 * `quoted` member, whose JSON is exactly the text of the column's output
 * (numbers, booleans and strings written by the output function), or a
 * date or timestamp member (`clock`, `clockZ`), whose ISO text
 * {@link clockKey} turns into the key's text; undefined for any other.
 */
function memberElement(row: RowMembers, column: string): ExtraSource | undefined {
  const m = row.members.find((x) => x.name === column);
  if (m === undefined || !("element" in m)) return undefined;
  if (m.form === "json" || m.form === "quoted") return { element: m.element };
  if (m.form === "clock" || m.form === "clockZ") return { element: m.element, clock: m.form };
  return undefined;
}

function buildSelect(row: RowMembers, extra: readonly SortKeyText[]): { list: string; layout: RowLayout } {
  const parts: string[] = [];
  if (row.elements.length > 0) parts.push(`json_build_array(${row.elements.join(", ")})::text AS "j"`);
  row.columns.forEach((sql, i) => parts.push(`${sql} AS "x${i}"`));
  const texts: string[] = [];
  const extras = extra.map((e): ExtraSource => {
    const element = e.column === undefined ? undefined : memberElement(row, e.column);
    if (element !== undefined) return element;
    texts.push(e.sql);
    return { k: texts.length - 1 };
  });
  if (texts.length > 0) parts.push(`array_to_json(ARRAY[${texts.join(", ")}]::text[])::text AS "k"`);
  const leads = row.members.map((m, i) => `${i === 0 ? "{" : ","}${m.prefix}`);
  return { list: parts.join(", "), layout: { members: row.members, leads, extras } };
}

const BACKSLASH = 92;
const QUOTE = 34;
const COMMA = 44;
const OPEN_BRACKET = 91;
const BRACKET = 93;
/** What `json_build_array` writes between two elements. */
const SEPARATOR = ", ";

/**
 * The end (exclusive) of the element of `j` starting at `pos`. `j` is an
 * array as `json_build_array` writes it (`[1, "a", null, "b\\"c", ["x","y"]]`)
 * of scalars and arrays of scalars: a string ends at the first quote after
 * an even run of backslashes, an array at its matching bracket (strings
 * skipped), anything else (a number, `true`, `false`, `null`, none of which
 * holds a comma) at the next comma or the closing bracket.
 */
function elementEnd(j: string, pos: number): number {
  const first = j.charCodeAt(pos);
  if (first === QUOTE) return stringEnd(j, pos);
  let end = pos + 1;
  if (first === OPEN_BRACKET) {
    for (let depth = 1; end < j.length && depth > 0;) {
      const c = j.charCodeAt(end);
      if (c === QUOTE) end = stringEnd(j, end);
      else {
        if (c === OPEN_BRACKET) depth++;
        else if (c === BRACKET) depth--;
        end++;
      }
    }
    return end;
  }
  // Bounded by the text's length too, so a truncated array cannot hold the loop.
  while (end < j.length && j.charCodeAt(end) !== COMMA && j.charCodeAt(end) !== BRACKET) end++;
  return end;
}

/** The end (exclusive) of the JSON string whose opening quote is at `pos`: after the first quote that follows an even run of backslashes. */
function stringEnd(j: string, pos: number): number {
  let end = j.indexOf('"', pos + 1);
  for (;;) {
    if (end < 0) return j.length;
    let slashes = 0;
    while (j.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end + 1;
    end = j.indexOf('"', end + 1);
  }
}

const BC = " BC";
/** The text around an inverse collection's two values, as `row_to_json` writes the object. */
const ITEMS_PREFIX = `{${JSON.stringify(COLLECTION_KEYS.items)}:`;
const MORE_PREFIX = `,${JSON.stringify(COLLECTION_KEYS.more)}:`;

/**
 * The JSON string of a date or timestamp member from its element of `j`
 * (`pos`..`end`, quotes included), the string `to_json` wrote for a
 * `timestamp`: `"2022-09-10T16:46:03.9"`, `"0044-03-15T10:00:00 BC"` or
 * `"infinity"`. The ISO text loses its era, as `btrim(…, '" BC')` does in
 * SQL (output.ts), and takes `Z` when `zulu` is set; an infinity, which
 * starts with a letter or `-` where the ISO text has a digit, is written as
 * it is (decision 1342).
 */
function clockText(j: string, pos: number, end: number, zulu: boolean): string {
  const first = j.charCodeAt(pos + 1);
  if (first < 48 || first > 57) return j.slice(pos, end);
  let to = end - 1;
  if (j.endsWith(BC, to)) to -= BC.length;
  return zulu ? `${j.slice(pos, to)}Z"` : `${j.slice(pos, to)}"`;
}

/**
 * The JSON text of the row object of one result row of a statement laid out
 * by `layout` (column `j` and the `x` columns): one pass over `j`, whose
 * elements come in member order. Throws a plain `Error` when the row lacks
 * a column the layout names.
 */
export function encodeRow(row: Readonly<Record<string, string | null>>, layout: RowLayout): string {
  const j = row.j ?? "[]";
  const { members, leads } = layout;
  let out = "";
  let pos = 1;
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    // Most members are elements of `j`: that case is tested first, and each key comes prebuilt with its comma.
    if ("element" in m) {
      const end = elementEnd(j, pos);
      out += leads[i]! + elementJson(j, pos, end, m.form);
      pos = end + SEPARATOR.length;
      continue;
    }
    out += leads[i]!;
    if ("column" in m) {
      const v = row[m.column];
      if (v === undefined) throw new Error(`the row has no column ${m.column}`);
      out += v === null ? "null" : m.rows === undefined ? v : memberObject(v, 1, m.rows);
      continue;
    }
    const items = row[m.collection.items];
    const more = row[m.collection.more];
    if (typeof items !== "string" || typeof more !== "string") throw new Error(`the row has no collection ${m.name}`);
    // row_to_json's text for the object expand.ts builds in SQL for a read (test/sql/list.test.ts compares them).
    out += `${ITEMS_PREFIX}${m.rows === undefined ? items : memberObjects(items, m.rows)}${MORE_PREFIX}${more}}`;
  }
  return members.length === 0 ? "{}" : `${out}}`;
}

/** The member's JSON from its element `pos`..`end` of `j`, in the member's form. */
function elementJson(j: string, pos: number, end: number, form: MemberForm): string {
  const quoted = j.charCodeAt(pos) === QUOTE;
  if (form === "json" || form === "array" || (quoted && form === "quoted")) return j.slice(pos, end);
  if (!quoted) return form === "quoted" && !j.startsWith("null", pos) ? `"${j.slice(pos, end)}"` : j.slice(pos, end);
  return clockText(j, pos, end, form === "clockZ");
}

/** Where a member array ended: just after its closing bracket ({@link memberObject} sets it). */
interface ArrayEnd {
  at: number;
}

/**
 * The object of a row sent as the JSON array of its members (an expanded
 * row, decision 1346), the array's first element starting at `pos` of
 * `text`; sets `end.at` when given, for a caller walking several arrays.
 */
function memberObject(text: string, pos: number, members: readonly ElementMember[], end?: ArrayEnd): string {
  let out = "{";
  let last = pos;
  for (let i = 0; i < members.length; i++) {
    const m = members[i]!;
    last = elementEnd(text, pos);
    out += `${i === 0 ? "" : ","}${m.prefix}${elementJson(text, pos, last, m.form)}`;
    pos = last + SEPARATOR.length;
  }
  if (end !== undefined) end.at = last + 1;
  return `${out}}`;
}

/**
 * The array of objects of rows sent as a JSON array of member arrays (a
 * page's inverse collection as `json_agg` writes it: `[]`, or `[[…], […]]`
 * with `, ` between the rows), the objects separated as `json_agg` separates them.
 */
function memberObjects(items: string, members: readonly ElementMember[]): string {
  let out = "[";
  const end: ArrayEnd = { at: 0 };
  let pos = items.indexOf("[", 1);
  while (pos > 0) {
    // `json_agg` writes ", " between rows; the read's collection is its text (decision 1343).
    out += `${out.length === 1 ? "" : SEPARATOR}${memberObject(items, pos + 1, members, end)}`;
    pos = items.indexOf("[", end.at);
  }
  return `${out}]`;
}

/**
 * The extra texts of a row (a list row's sort keys, as `::text` or the
 * forms of runtime/sql/seek.ts give them), null for NULL: read from the
 * members of `j` that hold them and from column `k`. Throws a plain
 * `Error` when the row lacks a column the layout names.
 */
export function extraElementsOf(row: Readonly<Record<string, string | null>>, layout: RowLayout): (string | null)[] {
  if (layout.extras.length === 0) return [];
  let k: (string | null)[] | undefined;
  return layout.extras.map((e) => {
    if ("k" in e) {
      if (k === undefined) {
        if (typeof row.k !== "string") throw new Error("the row has no column k");
        k = JSON.parse(row.k) as (string | null)[];
      }
      return k[e.k];
    }
    const text = elementText(row.j ?? "[]", e.element);
    return text === null || e.clock === undefined ? text : clockKey(text, e.clock === "clockZ");
  });
}

/**
 * A sort key's text from the ISO text `to_json` wrote for a date or
 * timestamp member (`2022-07-06T15:30:30.5`, `0044-03-15T10:00:00 BC`,
 * `infinity`): the same instant in the form runtime/cursor.ts reads back,
 * `Z` before the era when `zulu` (a `timestamptz`, or a date sent as
 * midnight UTC), the era kept, an infinity as it is. Exact: `to_json`
 * keeps every fraction digit (decision 1349).
 */
function clockKey(iso: string, zulu: boolean): string {
  // An infinity starts with a letter or `-` where the ISO text has a digit (as clockText tells them).
  const first = iso.charCodeAt(0);
  if (!zulu || first < 48 || first > 57) return iso;
  return iso.endsWith(BC) ? `${iso.slice(0, -BC.length)}Z${BC}` : `${iso}Z`;
}

/** Element `index` of `j` as text: a string unescaped, a number or boolean as written, null for `null`. */
function elementText(j: string, index: number): string | null {
  let pos = 1;
  for (let i = 0; i < index; i++) pos = elementEnd(j, pos) + SEPARATOR.length;
  const end = elementEnd(j, pos);
  if (j.charCodeAt(pos) === QUOTE) return JSON.parse(j.slice(pos, end)) as string;
  const text = j.slice(pos, end);
  return text === "null" ? null : text;
}
