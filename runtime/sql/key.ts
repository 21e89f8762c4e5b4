/**
 * Addressing one row by primary key (`/{id}` of read, update and delete;
 * `/{a}/{b}` for a composite key, docs/decisions/1376-composite-key-address.md).
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import type { Params } from "./bind.js";
import { bindElement, columnRef, findColumn } from "./column.js";
import { compileWhere } from "./where.js";

/**
 * The primary key of one row as an item route decodes it: one value for a
 * single-column key, or the values of every key column in the key's
 * declared order for a composite key (docs/decisions/1376-composite-key-address.md).
 */
export type RowKey = ScalarValue | readonly ScalarValue[];

/**
 * `"t0"."id" = $n::type` for the primary key of `table`; for a composite
 * key, one such equality per key column joined with AND, `key` holding the
 * values in key order. Throws a plain `Error` when the table has no primary
 * key or `key`'s shape does not match it (a programming error: the route
 * decoded the key against the same descriptor).
 */
export function keyCondition(table: TableDescriptor, key: RowKey, alias: string, params: Params): string {
  const values = keyValues(table, key);
  return keyColumns(table)
    .map((col, i) => `${columnRef(col, alias)} = ${bindElement(col, values[i]!, params)}`)
    .join(" AND ");
}

/**
 * The values of `key` in key-column order; throws a plain `Error` when its
 * shape does not match the table's key (see {@link keyCondition}).
 */
export function keyValues(table: TableDescriptor, key: RowKey): readonly ScalarValue[] {
  const values: readonly ScalarValue[] = Array.isArray(key) ? key : [key as ScalarValue];
  if (table.primaryKey.length === 0 || values.length !== table.primaryKey.length) {
    throw new Error(
      `relation "${table.name}" is addressed by ${table.primaryKey.length} key column(s), not ${values.length}`,
    );
  }
  return values;
}

/** The primary-key columns of `table`, in key order. */
export function keyColumns(table: TableDescriptor): ColumnDescriptor[] {
  return table.primaryKey.map((name) => findColumn(table, name));
}

/**
 * The single primary-key column of `table`. Throws a plain `Error` when the
 * key is composite or missing: the batched and cached plain reads bind one
 * value per key (runtime/sql/read.ts); a composite key takes the general path.
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
  key: RowKey,
  scope: Predicate | undefined,
  alias: string,
  params: Params,
): string {
  const byKey = keyCondition(table, key, alias, params);
  return scope === undefined ? byKey : `${byKey} AND (${compileWhere(table, scope, alias, params)})`;
}
