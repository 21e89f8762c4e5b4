/**
 * The JSON form of a row, built by PostgreSQL, for expansions and the
 * version tag a conditional write compares (`row.ts`, `rowTag`), and the
 * JSON-ready SQL of each value (`outputExpr`), which lists, reads and
 * writes use too (`members.ts`, decisions 0805 and 1351), so a value has one
 * form everywhere (spec: Expanded relation shapes; forms decided in
 * docs/decisions/0400-row-json-forms.md).
 */
import type { ColumnDescriptor, TableDescriptor, ValueKind } from "../descriptor.js";
import type { SqlStatement } from "../exec/executor.js";
import { Params } from "./bind.js";
import { bindColumnValue, columnRef, type ColumnValue } from "./column.js";
import { quoteIdent } from "./ident.js";
import { projectionKey, SchemaCache } from "./schema-cache.js";

/** One member of a row object: the JSON key and the SQL computing its value. */
export interface OutputEntry {
  name: string;
  sql: string;
  /**
   * A `LEFT JOIN …` the value reads from, for a list page's expansions
   * (runtime/sql/expand.ts, docs/decisions/1340-expansions-per-page.md);
   * absent when `sql` stands alone.
   */
  join?: string;
  /**
   * For an inverse collection of a list page: its `items` (a `json` array)
   * and `has_more` (a boolean) as two SQL values, from which Node writes
   * the object `sql` builds, without PostgreSQL running a subquery per row
   * (runtime/sql/members.ts, docs/decisions/1343-expanded-rows-without-subqueries.md).
   */
  collection?: { items: string; more: string };
  /**
   * For a list page's expansion: the target table, when each target row
   * comes as the JSON array of its members (`json_build_array`, as a row's
   * `j`; runtime/sql/members.ts) rather than its object. `sql` (forward) is
   * then one such array or null, `collection.items` (inverse) an array of
   * them, and Node writes the objects with the target's member layout
   * (docs/decisions/1346-expanded-rows-as-member-arrays.md). Absent when the
   * value is JSON as served.
   */
  elementsOf?: TableDescriptor;
}

/**
 * The member names of an inverse collection's object (spec: Expansion):
 * `{"items": [...], "has_more": bool}`, stated once for the SQL that builds
 * it for a read and the Node code that writes it for a page (decision 1343).
 */
export const COLLECTION_KEYS = { items: "items", more: "has_more" } as const;

/**
 * A date-like scalar ({@link temporalJson}) as `YYYY-MM-DDTHH:MI:SS`, then the microseconds
 * with trailing zeros (and a bare dot) trimmed: `…:05.1234`, `…:05`.
 * `to_json` writes exactly that ISO 8601 form whatever the session's
 * DateStyle, in double quotes, with ` BC` after years before 1 AD; trimming
 * those characters from both ends (the form itself starts and ends with a
 * digit) leaves the era out, as decision 0400 says. One `to_json` costs
 * less than the two `to_char` calls it replaced (decision 0803).
 */
function clockWithFraction(kind: "date" | "timestamptz" | "timestamp", x: string): string {
  return `btrim(${temporalJson(kind, x)}::text, '" BC')`;
}

/** Keeps `infinity`/`-infinity` as their text, which the formatting above would not. */
function finiteOr(x: string, formatted: string): string {
  return `CASE WHEN isfinite(${x}) THEN ${formatted} ELSE ${x}::text END`;
}

/**
 * A date-like scalar as a `timestamp`, the value whose JSON text both the
 * SQL formatting here and Node's (runtime/sql/members.ts, decision 1342)
 * start from: `timestamptz` at UTC, `date` at midnight, `timestamp` as it
 * is. `json_build_array` writes it as `to_json` would, so a row member
 * passes it bare (decision 1349).
 */
export function temporalValue(kind: "date" | "timestamptz" | "timestamp", x: string): string {
  switch (kind) {
    case "date":
      return `${x}::timestamp`;
    case "timestamptz":
      return `(${x} AT TIME ZONE 'UTC')`;
    case "timestamp":
      return x;
  }
}

/** `to_json` of {@link temporalValue}: the ISO text in double quotes, ` BC` after years before 1 AD. */
export function temporalJson(kind: "date" | "timestamptz" | "timestamp", x: string): string {
  return `to_json(${temporalValue(kind, x)})`;
}

/**
 * The JSON-ready form of one scalar of `kind`, or undefined when
 * `row_to_json` already writes the right JSON (text, enum, uuid, boolean,
 * integer, bigint as a number, float, time, jsonb as the document,
 * character(n) padded as stored).
 */
function formatScalar(kind: ValueKind, x: string): string | undefined {
  switch (kind) {
    case "numeric":
      return `${x}::text`;
    case "date":
      return finiteOr(x, `${clockWithFraction("date", x)} || 'Z'`);
    case "timestamptz":
      return finiteOr(x, `${clockWithFraction("timestamptz", x)} || 'Z'`);
    case "timestamp":
      return finiteOr(x, clockWithFraction("timestamp", x));
    case "bytea":
      // encode() wraps base64 every 76 characters; the JSON form is one line.
      return `replace(encode(${x}, 'base64'), chr(10), '')`;
    default:
      return undefined;
  }
}

/**
 * SQL for the JSON-ready value of `col` on the row aliased `alias`. Arrays
 * keep their element order; numeric arrays become text arrays, date-like
 * and bytea arrays are formatted element by element (NULL elements stay
 * null, an empty array stays empty).
 */
export function outputExpr(col: ColumnDescriptor, alias: string): string {
  const ref = columnRef(col, alias);
  if (!col.array) return formatScalar(col.kind, ref) ?? ref;
  if (col.kind === "numeric") return `${ref}::text[]`;
  const element = formatScalar(col.kind, `"u"."e"`);
  if (element === undefined) return ref;
  return `CASE WHEN ${ref} IS NULL THEN NULL ELSE ARRAY(SELECT ${element} FROM unnest(${ref}) WITH ORDINALITY AS "u"("e", "i") ORDER BY "u"."i") END`;
}

/**
 * The columns a row object carries, in declaration order
 * (docs/decisions/0401-list-statement-shape.md): never a hidden column;
 * a computed column only when the resource computes it (`computed`) and,
 * with a projection, when `select` names it; a stored column when there is
 * no projection, when `select` names it, or when it is part of the primary
 * key (spec: Projection).
 */
export function outputColumns(
  table: TableDescriptor,
  computed: readonly string[],
  select?: readonly string[],
): ColumnDescriptor[] {
  return table.columns.filter((c) => {
    if (c.hidden) return false;
    if (c.computed !== undefined) return computed.includes(c.name) && (select === undefined || select.includes(c.name));
    return select === undefined || select.includes(c.name) || table.primaryKey.includes(c.name);
  });
}

/** The computed columns the table's resource computes; none when the table is not served. */
export function resourceComputed(table: TableDescriptor): readonly string[] {
  return table.resource?.computed ?? [];
}

/**
 * The row object as a SQL `json` expression: a scalar subquery
 * `(SELECT row_to_json("o") FROM (SELECT <sql> AS "<name>", …) AS "o")`.
 * `row_to_json` keeps member order and has no argument limit (unlike
 * `json_build_object`'s 100); the inner SELECT has no FROM, so the entries
 * read the enclosing row.
 */
export function rowJson(entries: readonly OutputEntry[]): string {
  return rowJsonOfList(entryList(entries));
}

/** The select list of a row object: `<sql> AS "<name>", …`. */
export function entryList(entries: readonly OutputEntry[]): string {
  return entries.map((e) => `${e.sql} AS ${quoteIdent(e.name)}`).join(", ");
}

/** {@link rowJson} from a select list {@link entryList} already wrote. */
export function rowJsonOfList(list: string): string {
  return `(SELECT row_to_json("o") FROM (SELECT ${list}) AS "o")`;
}

/** The entries of `columns` on the row aliased `alias`. */
export function columnEntries(columns: readonly ColumnDescriptor[], alias: string): OutputEntry[] {
  return columns.map((c) => ({ name: c.name, sql: outputExpr(c, alias) }));
}

/** The row object of a table on one alias, without expansions: its select list ({@link entryList}) and {@link rowJson}. */
export interface TableRowSql {
  list: string;
  json: string;
}

const rowCache = new SchemaCache<TableDescriptor, TableRowSql>();

/**
 * The row object of `table` aliased `alias` as a direct read or a list
 * returns it: the {@link outputColumns} of the resource's computed columns
 * and projection `select`, as a select list and as {@link rowJson}. It depends on
 * the descriptor, the alias and the projection only, so it is built once
 * and cached per table (decision 0802: no request repeats schema work);
 * descriptors are not changed once built.
 */
export function tableRow(table: TableDescriptor, alias: string, select?: readonly string[]): TableRowSql {
  return rowCache.get(table, projectionKey(alias, select), () => {
    const list = entryList(columnEntries(outputColumns(table, resourceComputed(table), select), alias));
    return { list, json: rowJsonOfList(list) };
  });
}

/**
 * The statement writing values that are not a stored row (a declared
 * action's output) in the JSON form a row member of the same type has:
 * each value is bound cast to its field's type and formatted by
 * {@link outputExpr}, so a `bigint`, a timestamp, bytes or a numeric read
 * from an action answer are spelled as a read of a row spells them
 * (docs/decisions/1358-values-through-codecs.md). One row, columns `v0`,
 * `v1`, … holding each value's JSON text (NULL for SQL NULL).
 * @throws Error when a value's shape does not fit its field ({@link bindColumnValue})
 */
export function compileValuesJson(
  fields: readonly ColumnDescriptor[],
  values: readonly (ColumnValue | null)[],
): SqlStatement {
  const params = new Params();
  const inner = fields.map((f, i) => `${bindColumnValue(f, values[i] ?? null, params)} AS ${quoteIdent(f.name)}`);
  // Fields are read by name under the alias, as a row's columns are; `dbName` never applies to them.
  const outer = fields.map((f, i) => {
    const { dbName: _name, computed: _computed, ...plain } = f;
    return `to_json(${outputExpr(plain, "o")})::text AS "v${i}"`;
  });
  return params.statement(`SELECT ${outer.join(", ")} FROM (SELECT ${inner.join(", ")}) AS "o"`);
}
