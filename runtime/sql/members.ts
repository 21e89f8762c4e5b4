/**
 * Row objects of lists and reads, written in Node from what PostgreSQL
 * sends (docs/decisions/0805-row-members-as-json-array.md): the scalar
 * members as one JSON array of texts, `array_to_json(ARRAY[…])` in column
 * `j` (PostgreSQL escapes every string once, with one type lookup per row
 * instead of one per column), and each member that already is JSON (arrays,
 * documents, expansions) in a column of its own, `x0`, `x1`, …
 * {@link encodeRow} writes the object with the forms of decision 0400; the
 * text is the one `row_to_json` writes for the same row
 * (`test/sql/members.test.ts`).
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import type { SqlStatement } from "../exec/executor.js";
import { columnRef } from "./column.js";
import { outputColumns, outputExpr, resourceComputed, type OutputEntry } from "./output.js";
import { projectionKey, SchemaCache } from "./schema-cache.js";

/**
 * How a member's text becomes JSON: `raw` is written as it is (a number, a
 * boolean), `string` as a JSON string, `number` raw when it is a JSON number
 * and as a string otherwise (`NaN`, `Infinity`), as `row_to_json` writes floats.
 */
export type MemberForm = "raw" | "string" | "number";

/** One member of a row object: its key written as `"name":`, and where its value is. */
export type Member = { prefix: string; element: number; form: MemberForm } | { prefix: string; column: string };

/** How to read the rows of a statement built with {@link rowMembers}. */
export interface RowLayout {
  members: readonly Member[];
  /** Elements of `j` after the members' (the sort keys of a list), in order. */
  extraElements: number;
}

/** A statement whose rows carry row objects laid out by `layout`. */
export interface RowStatement extends SqlStatement {
  layout: RowLayout;
}

/** One member as SQL: an element of `j` (text) or a column of its own (JSON text). */
interface MemberSql {
  name: string;
  sql: string;
  /** Absent for a JSON column. */
  form?: MemberForm;
}

/** `character(n)` (cast type `bpchar`), whose padding a cast to text would trim. */
function padded(col: ColumnDescriptor): boolean {
  return /^(bpchar|character|char)(\(|$)/i.test(col.sqlType);
}

/** The SQL of column `col` of the row aliased `alias` as a member. */
function columnMember(col: ColumnDescriptor, alias: string): MemberSql {
  const name = col.name;
  const ref = columnRef(col, alias);
  if (col.array || col.kind === "other" || (col.kind === "text" && padded(col))) {
    return { name, sql: `to_json(${outputExpr(col, alias)})::text` };
  }
  switch (col.kind) {
    case "jsonb":
      return { name, sql: `(${ref})::text` };
    case "integer":
    case "bigint":
    case "boolean":
      return { name, sql: `(${ref})::text`, form: "raw" };
    case "float":
      return { name, sql: `(${ref})::text`, form: "number" };
    case "numeric":
    case "date":
    case "timestamptz":
    case "timestamp":
    case "bytea":
      // Already text in its JSON-ready form (output.ts).
      return { name, sql: outputExpr(col, alias), form: "string" };
    default:
      // text, enum, uuid, time: the text output is the JSON string's content.
      return { name, sql: `(${ref})::text`, form: "string" };
  }
}

/** A row object's select list and layout, before extra elements are added. */
export interface RowMembers {
  /** Member elements' SQL, in order (`j` is built from these plus any extra elements). */
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
    if (e.form === undefined) {
      members.push({ prefix, column: `x${columns.length}` });
      columns.push(e.sql);
    } else {
      members.push({ prefix, element: elements.length, form: e.form });
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

/** `row` followed by JSON members: expansions, whose SQL is a `json` value. */
export function withJsonMembers(row: RowMembers, extra: readonly OutputEntry[]): RowMembers {
  if (extra.length === 0) return row;
  const columns = [...row.columns];
  const members = [...row.members];
  const joins = [...(row.joins ?? [])];
  for (const e of extra) {
    members.push({ prefix: `${JSON.stringify(e.name)}:`, column: `x${columns.length}` });
    columns.push(`(${e.sql})::text`);
    if (e.join !== undefined) joins.push(e.join);
  }
  return { elements: row.elements, columns, members, ...(joins.length > 0 ? { joins } : {}) };
}

/**
 * The select list of `row` with `extra` more text elements in `j` (sort
 * keys), and its layout: `array_to_json(ARRAY[…]::text[])::text AS "j"`,
 * then `<sql> AS "x0"`, …
 */
export function memberSelect(row: RowMembers, extra: readonly string[] = []): { list: string; layout: RowLayout } {
  // The same members and keys give the same text: built once (decision 0802), a few orderings per table.
  return selects.get(row, extra.join("\u0000"), () => buildSelect(row, extra));
}

const selects = new SchemaCache<RowMembers, { list: string; layout: RowLayout }>();

function buildSelect(row: RowMembers, extra: readonly string[]): { list: string; layout: RowLayout } {
  const elements = [...row.elements, ...extra];
  const parts: string[] = [];
  if (elements.length > 0) parts.push(`array_to_json(ARRAY[${elements.join(", ")}]::text[])::text AS "j"`);
  row.columns.forEach((sql, i) => parts.push(`${sql} AS "x${i}"`));
  return { list: parts.join(", "), layout: { members: row.members, extraElements: extra.length } };
}

const BACKSLASH = 92;
const QUOTE = 34;
/** A JSON number as PostgreSQL's float output writes one. */
const JSON_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/**
 * The end (exclusive) of the element of `j` starting at `pos`: a JSON
 * string, whose closing quote is the first one after an even run of
 * backslashes, or `null`. `j` is an array as `array_to_json` writes it
 * (`["a",null,"b\\"c"]`, no spaces).
 */
function elementEnd(j: string, pos: number): number {
  if (j.charCodeAt(pos) !== QUOTE) return pos + 4;
  let end = j.indexOf('"', pos + 1);
  for (;;) {
    let slashes = 0;
    while (j.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return end + 1;
    end = j.indexOf('"', end + 1);
  }
}

/**
 * The JSON text of the row object of one result row of a statement laid out
 * by `layout` (column `j` and the `x` columns): one pass over `j`, whose
 * elements come in member order. Throws a plain `Error` when the row lacks
 * a column the layout names.
 */
export function encodeRow(row: Readonly<Record<string, string | null>>, layout: RowLayout): string {
  const j = row.j ?? "[]";
  const members = layout.members;
  let out = "{";
  let pos = 1;
  for (let i = 0; i < members.length; i++) {
    const m = members[i];
    out += i === 0 ? m.prefix : `,${m.prefix}`;
    if ("column" in m) {
      const v = row[m.column];
      if (v === undefined) throw new Error(`the row has no column ${m.column}`);
      out += v ?? "null";
      continue;
    }
    const end = elementEnd(j, pos);
    if (j.charCodeAt(pos) !== QUOTE) out += "null";
    else if (m.form === "string") out += j.slice(pos, end);
    else {
      const inner = j.slice(pos + 1, end - 1);
      out += m.form === "raw" || JSON_NUMBER.test(inner) ? inner : j.slice(pos, end);
    }
    pos = end + 1;
  }
  return `${out}}`;
}

/**
 * The extra elements of `j` (the sort keys of a list row) as text, null for
 * NULL, unescaped.
 */
export function extraElementsOf(row: Readonly<Record<string, string | null>>, layout: RowLayout): (string | null)[] {
  const j = row.j ?? "[]";
  let pos = 1;
  for (const m of layout.members) if (!("column" in m)) pos = elementEnd(j, pos) + 1;
  const out: (string | null)[] = [];
  for (let i = 0; i < layout.extraElements; i++) {
    const end = elementEnd(j, pos);
    out.push(j.charCodeAt(pos) === QUOTE ? (JSON.parse(j.slice(pos, end)) as string) : null);
    pos = end + 1;
  }
  return out;
}
