/**
 * ORDER BY from sort terms, with the null placement declared on each column
 * (spec: Sorting). The same terms serve the list and the children of an
 * inverse expansion.
 */
import type { SortTerm, TableDescriptor } from "../descriptor.js";
import { columnRef, findColumn } from "./column.js";

/**
 * One resolved ordering key: the SQL of the value, its direction and its
 * declared null placement. A keyset seek (decision 0401) compares the same
 * `sql` expressions in the same directions.
 */
export interface OrderKey {
  column: string;
  sql: string;
  descending: boolean;
  /** Declared placement; undefined leaves PostgreSQL's default (last ascending, first descending). */
  nulls?: "first" | "last";
}

/**
 * Resolves sort terms against `table` aliased `alias`. Throws a plain
 * `Error` for an unknown column (terms arrive validated by runtime/query).
 */
export function orderKeys(table: TableDescriptor, sort: readonly SortTerm[], alias: string): OrderKey[] {
  return sort.map((t) => {
    const col = findColumn(table, t.column);
    const key: OrderKey = { column: col.name, sql: columnRef(col, alias), descending: t.descending };
    if (col.nulls !== undefined) key.nulls = col.nulls;
    return key;
  });
}

/**
 * The terms of an ORDER BY clause (without the keywords), e.g.
 * `"t0"."due_on" DESC NULLS LAST, "t0"."id" DESC`. A declared placement is
 * written in both directions; an undeclared one is left to the database.
 * Empty string for no keys.
 */
export function orderByTerms(keys: readonly OrderKey[]): string {
  return keys
    .map((k) => {
      const nulls = k.nulls === "last" ? " NULLS LAST" : k.nulls === "first" ? " NULLS FIRST" : "";
      return `${k.sql} ${k.descending ? "DESC" : "ASC"}${nulls}`;
    })
    .join(", ");
}

/**
 * Sort terms with the primary key appended as the final tiebreak, each key
 * column not already present taking the last term's direction (ascending
 * when there are no terms), so the ordering is total and deterministic
 * (spec: Sorting, Expansion rule 5).
 */
export function withKeyTiebreak(table: TableDescriptor, sort: readonly SortTerm[]): SortTerm[] {
  const descending = sort.length > 0 ? sort[sort.length - 1].descending : false;
  const out = [...sort];
  for (const k of table.primaryKey) {
    if (!out.some((t) => t.column === k)) out.push({ column: k, descending });
  }
  return out;
}
