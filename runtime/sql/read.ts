/**
 * The statement of a read (spec: Generated operations, OpRead): one row by
 * primary key, with expansions, as JSON.
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import { Params } from "./bind.js";
import { addressRow } from "./key.js";
import { quoteIdent, tableSql } from "./ident.js";
import { Aliases, type CompileOptions } from "./options.js";
import { rowMembers } from "./row.js";
import { memberSelect, type RowStatement } from "./members.js";

/**
 * Compiles a read of the row of `table` whose primary key is `key`, with the
 * relations `expand` expanded, confined by `scope`. The statement returns
 * zero rows (absent or out of scope) or one row: the members of the row
 * object (`layout`, written by `encodeRow`), the same object a list returns
 * for that row without projection. Throws a
 * plain `Error` when the table's primary key is not a single column (such
 * resources are list-only), for unknown relations, or for a scope that
 * cannot be requalified onto an expanded table.
 */
export function compileRead(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: ScalarValue,
  expand: readonly string[] = [],
  scope?: Predicate,
  options: CompileOptions = {},
): RowStatement {
  const params = new Params();
  const aliases = new Aliases();
  const alias = aliases.next();
  const select = memberSelect(rowMembers(service, table, alias, { expand }, { params, aliases, options }));
  const where = addressRow(table, key, scope, alias, params);
  const from = `${tableSql(table)} AS ${quoteIdent(alias)}`;
  return { ...params.statement(`SELECT ${select.list} FROM ${from} WHERE ${where}`), layout: select.layout };
}
