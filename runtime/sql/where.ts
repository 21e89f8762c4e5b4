/**
 * The predicate tree as a SQL condition (runtime/predicate.ts is the tree;
 * this is its only consumer). Groups are always parenthesised, so the
 * output can be combined with AND by callers without precedence surprises.
 */
import type { TableDescriptor } from "../descriptor.js";
import type { Predicate, RawPredicate } from "../predicate.js";
import { encodeScalar, type Params } from "./bind.js";
import { compileComparison } from "./comparison.js";
import { columnRef, findColumn } from "./column.js";
import { quoteIdent, tableSql } from "./ident.js";

/**
 * A raw predicate from trusted code: its SQL parts joined by fresh
 * placeholders of this statement (`$n` renumbered into `params`), values
 * bound as untyped text so PostgreSQL infers their type from the context.
 * Throws when the parts and values do not interleave (parts = values + 1).
 */
function compileRaw(p: RawPredicate, params: Params): string {
  if (p.parts.length !== p.values.length + 1) {
    throw new Error(`raw predicate has ${p.parts.length} SQL parts for ${p.values.length} values`);
  }
  let sql = p.parts[0];
  p.values.forEach((v, i) => {
    sql += params.add(encodeScalar(v)) + p.parts[i + 1];
  });
  return `(${sql})`;
}

/**
 * Compiles predicate `p` over the rows of `table` aliased `alias` into a SQL
 * boolean expression, adding every value to `params` as a bind parameter.
 *
 * An `and` of no children is `TRUE`, an `or` of none is `FALSE`; `not` is
 * SQL `NOT`, so three-valued logic holds throughout. Throws a plain `Error`
 * for a comparison qualified with another relation, an unknown column, an
 * operator the column does not take or a malformed value (see
 * {@link compileComparison}).
 */
export function compileWhere(table: TableDescriptor, p: Predicate, alias: string, params: Params): string {
  switch (p.kind) {
    case "cmp":
      return compileComparison(table, p, alias, params);
    case "and":
      if (p.children.length === 0) return "TRUE";
      return p.children.map((c) => `(${compileWhere(table, c, alias, params)})`).join(" AND ");
    case "or":
      if (p.children.length === 0) return "FALSE";
      return p.children.map((c) => `(${compileWhere(table, c, alias, params)})`).join(" OR ");
    case "not":
      return `NOT (${compileWhere(table, p.child, alias, params)})`;
    case "raw":
      return compileRaw(p, params);
    case "related": {
      // A fresh alias per nesting level: siblings are separate subqueries and may share one.
      const inner = `${alias}r`;
      const target = findColumn(p.target, p.targetColumn);
      const local = findColumn(table, p.column);
      return (
        `EXISTS (SELECT 1 FROM ${tableSql(p.target)} AS ${quoteIdent(inner)} WHERE ` +
        `${columnRef(target, inner)} = ${columnRef(local, alias)} AND (${compileWhere(p.target, p.where, inner, params)}))`
      );
    }
  }
}
