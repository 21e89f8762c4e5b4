/**
 * Keyset pagination: the condition "comes after the last row of the
 * previous page" for an ordering, and the sort-key values of each row that a
 * cursor carries (spec: Pagination rule 2; docs/decisions/0401-list-statement-shape.md).
 */
import type { TableDescriptor } from "../descriptor.js";
import type { Params } from "./bind.js";
import { findColumn } from "./column.js";
import type { OrderKey } from "./order.js";

/** Where NULLs of a key sit: the declared placement, else PostgreSQL's default (last ascending, first descending). */
function nullsLast(k: OrderKey): boolean {
  return k.nulls === undefined ? !k.descending : k.nulls === "last";
}

/** Whether the key can hold NULL: a nullable stored column or any computed expression. */
function canBeNull(table: TableDescriptor, k: OrderKey): boolean {
  const col = findColumn(table, k.column);
  return col.nullable || col.computed !== undefined;
}

/**
 * One sort key's value as text: the SQL computing it and, when a row
 * member of the same column holds that value exactly, the column's name,
 * so a statement that already sends the column as a row member reads the
 * key from the member instead of computing it per row (runtime/sql/members.ts,
 * decisions 1342 and 1349).
 */
export interface SortKeyText {
  sql: string;
  /**
   * Set when the listed row's member `column` holds the key: its text is
   * the column's output (`::text`) or, for dates and timestamps, the
   * member's ISO text, which members.ts turns into the form below.
   */
  column?: string;
}

/**
 * The text of one key value, in the form the column's URL codec reads
 * (runtime/query/codecs.ts), so a cursor's values can be checked like any
 * request value and bound back exactly (docs/decisions/0500-cursor-format.md):
 * timestamps in UTC with the `T` separator, dates as `YYYY-MM-DD`, bytes as
 * `\x` hex, whatever the session's DateStyle, time zone or `bytea_output`;
 * a date or timestamp before 1 AD ends in ` BC` and one after it in ` AD`
 * (`to_char`'s era field; runtime/cursor.ts reads both). `infinity` and
 * `-infinity` keep PostgreSQL's spelling (`to_char` cannot format them).
 * Every other kind is its `::text`.
 */
function keyText(table: TableDescriptor, k: OrderKey): SortKeyText {
  const v = k.sql;
  const finite = (formatted: string): string => `CASE WHEN isfinite(${v}) THEN ${formatted} ELSE (${v})::text END`;
  switch (findColumn(table, k.column).kind) {
    case "timestamptz":
      return { sql: finite(`to_char(${v} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z "BC')`), column: k.column };
    case "timestamp":
      return { sql: finite(`to_char(${v}, 'YYYY-MM-DD"T"HH24:MI:SS.US BC')`), column: k.column };
    case "date":
      return { sql: finite(`to_char((${v})::timestamp, 'YYYY-MM-DD BC')`), column: k.column };
    case "bytea":
      return { sql: `chr(92) || 'x' || encode(${v}, 'hex')` };
    default:
      return { sql: `(${v})::text`, column: k.column };
  }
}

/**
 * The sort-key values of a row as text expressions (null for NULL), in the
 * form {@link keyText} gives, which the column's type reads back exactly.
 * A list compiled with `sortKeys` reads them from the row's members where
 * it can and selects the others in column `k`
 * (docs/decisions/1342-members-with-json-build-array.md), computed for the
 * page's rows only (docs/decisions/0801-list-paging-clauses.md).
 */
export function sortKeyTexts(table: TableDescriptor, keys: readonly OrderKey[]): SortKeyText[] {
  return keys.map((k) => keyText(table, k));
}

/**
 * The condition selecting the rows that come strictly after a row whose
 * sort-key values were `after` (text form, as {@link sortKeyTexts} gives
 * them; null for NULL), in the order `keys` (which end with the primary
 * key, so the order is total).
 *
 * When every key is NOT NULL and all share one direction this is a single
 * row comparison, `(a, b) > ($1, $2)` (`<` descending), which an index on
 * the keys serves; otherwise it is the expanded form `a > $1 OR (a = $1 AND
 * b > $2) …`, honouring each key's direction and null placement. Throws a
 * plain `Error` when the number of values differs from the number of keys.
 */
export function compileSeek(
  table: TableDescriptor,
  keys: readonly OrderKey[],
  after: readonly (string | null)[],
  params: Params,
): string {
  if (after.length !== keys.length)
    throw new Error(`a cursor of ${after.length} values cannot follow ${keys.length} sort keys`);
  if (keys.length === 0) return "TRUE";
  const bound = keys.map((k, i) =>
    after[i] === null ? null : params.typed(after[i], findColumn(table, k.column).sqlType),
  );
  const uniform = keys.every((k) => k.descending === keys[0].descending && !canBeNull(table, k));
  if (uniform && bound.every((b) => b !== null)) {
    const op = keys[0].descending ? "<" : ">";
    return `(${keys.map((k) => k.sql).join(", ")}) ${op} (${bound.join(", ")})`;
  }
  const branches: string[] = [];
  const equal: string[] = [];
  keys.forEach((k, i) => {
    const v = bound[i];
    let later: string | undefined;
    if (v === null) later = nullsLast(k) ? undefined : `${k.sql} IS NOT NULL`;
    else {
      later = `${k.sql} ${k.descending ? "<" : ">"} ${v}`;
      if (nullsLast(k) && canBeNull(table, k)) later = `(${later} OR ${k.sql} IS NULL)`;
    }
    if (later !== undefined) branches.push([...equal, later].join(" AND "));
    equal.push(v === null ? `${k.sql} IS NULL` : `${k.sql} = ${v}`);
  });
  return branches.length === 0 ? "FALSE" : branches.map((b) => `(${b})`).join(" OR ");
}
