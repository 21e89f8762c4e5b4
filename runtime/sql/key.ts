/**
 * Addressing one row by primary key (`/{id}` of read, update and delete).
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import type { Params } from "./bind.js";
import { bindElement, columnRef, findColumn } from "./column.js";
import { compileWhere } from "./where.js";

/**
 * `"t0"."id" = $n::type` for the single-column primary key of `table`.
 * Throws a plain `Error` when the key is composite or missing: a resource
 * with a composite key is list-only (language sketch), so no item path
 * reaches here.
 */
export function keyCondition(table: TableDescriptor, key: ScalarValue, alias: string, params: Params): string {
  const col = keyColumn(table);
  return `${columnRef(col, alias)} = ${bindElement(col, key, params)}`;
}

/**
 * The single primary-key column of `table`. Throws a plain `Error` when the
 * key is composite or missing (see {@link keyCondition}).
 */
export function keyColumn(table: TableDescriptor): ColumnDescriptor {
  if (table.primaryKey.length !== 1) {
    throw new Error(`relation "${table.name}" has no single-column primary key to address one row by`);
  }
  return findColumn(table, table.primaryKey[0]);
}

/**
 * The condition addressing one row in scope: the key condition, AND the
 * scope when one is given (a row outside the scope is treated as absent).
 */
export function addressRow(
  table: TableDescriptor,
  key: ScalarValue,
  scope: Predicate | undefined,
  alias: string,
  params: Params,
): string {
  const byKey = keyCondition(table, key, alias, params);
  return scope === undefined ? byKey : `${byKey} AND (${compileWhere(table, scope, alias, params)})`;
}
