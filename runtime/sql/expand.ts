/**
 * Relation expansion (spec: Expansion): forward references and inverse
 * collections as correlated subqueries inside the base row's JSON, so they
 * are read in the same statement (one snapshot) and an unexpanded request
 * joins nothing (docs/decisions/0401-list-statement-shape.md).
 */
import { DEFAULT_EXPAND_LIMIT } from "../descriptor.js";
import type { RelationDescriptor, ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate } from "../predicate.js";
import { HookError } from "../hook-error.js";
import type { Params } from "./bind.js";
import { columnRef, findColumn } from "./column.js";
import { qualified, quoteIdent, tableSql } from "./ident.js";
import type { Aliases, CompileOptions } from "./options.js";
import { orderByTerms, orderKeys, withKeyTiebreak } from "./order.js";
import { tableRow, type OutputEntry } from "./output.js";
import { compileWhere } from "./where.js";

/** What an expansion needs from the statement being built. */
export interface ExpandContext {
  service: ServiceDescriptor;
  params: Params;
  aliases: Aliases;
  options: CompileOptions;
}

/** The descriptor of table `name`; throws a plain `Error` when the service has none. */
export function findTable(service: ServiceDescriptor, name: string): TableDescriptor {
  const t = service.tables.find((x) => x.name === name);
  if (!t) throw new Error(`the service has no relation "${name}"`);
  return t;
}

/**
 * Refuses what cannot be moved onto the joined table with certainty: a raw
 * predicate, or a comparison qualified with a table other than the target
 * (spec: Expansion rule 6). The typed error names the relation and is
 * answered as a server misconfiguration (docs/decisions/0600-hooks.md).
 */
function assertRequalifiable(p: Predicate, relation: RelationDescriptor): void {
  switch (p.kind) {
    case "raw":
      throw new HookError(
        "beforeQuery",
        relation.target,
        "it returned a raw SQL predicate, which cannot be requalified onto the joined table",
        relation.name,
      );
    case "cmp":
      if (p.table !== undefined && p.table !== relation.target) {
        throw new HookError(
          "beforeQuery",
          relation.target,
          `it returned a comparison qualified with table "${p.table}", not "${relation.target}"`,
          relation.name,
        );
      }
      return;
    case "not":
      return assertRequalifiable(p.child, relation);
    default:
      p.children.forEach((c) => assertRequalifiable(c, relation));
  }
}

/** The join condition plus the target's scope, as SQL. */
function targetConditions(
  ctx: ExpandContext,
  relation: RelationDescriptor,
  target: TableDescriptor,
  join: string,
  alias: string,
): string {
  const scope = ctx.options.scopeFor?.(target.name);
  if (scope === undefined) return join;
  assertRequalifiable(scope, relation);
  return `${join} AND (${compileWhere(target, scope, alias, ctx.params)})`;
}

/** The target row as a direct read returns it: visible columns and the computed ones its resource computes. */
function targetRow(target: TableDescriptor, alias: string): string {
  return tableRow(target, alias).json;
}

function forward(ctx: ExpandContext, table: TableDescriptor, relation: RelationDescriptor, outer: string): string {
  const target = findTable(ctx.service, relation.target);
  const alias = ctx.aliases.next();
  const local = findColumn(table, relation.column);
  const join = `${columnRef(findColumn(target, relation.targetColumn), alias)} = ${columnRef(local, outer)}`;
  const where = targetConditions(ctx, relation, target, join, alias);
  // The referenced column is a key of the target, so at most one row; none gives JSON null.
  return `(SELECT ${targetRow(target, alias)} FROM ${tableSql(target)} AS ${quoteIdent(alias)} WHERE ${where})`;
}

function inverse(ctx: ExpandContext, table: TableDescriptor, relation: RelationDescriptor, outer: string): string {
  const child = findTable(ctx.service, relation.target);
  const alias = ctx.aliases.next();
  const parentKey = findColumn(table, relation.targetColumn);
  const join = `${columnRef(findColumn(child, relation.column), alias)} = ${columnRef(parentKey, outer)}`;
  const where = targetConditions(ctx, relation, child, join, alias);
  const order = orderByTerms(orderKeys(child, withKeyTiebreak(child, relation.order), alias));
  const cap = relation.limit ?? DEFAULT_EXPAND_LIMIT;
  const limit = ctx.params.typed(String(cap), "bigint");
  const probe = ctx.params.typed(String(cap + 1), "bigint");
  // Reads cap + 1 children: the extra one only tells has_more (spec: Expansion rule 5).
  const children =
    `SELECT ${targetRow(child, alias)} AS "j", row_number() OVER (ORDER BY ${order}) AS "n" ` +
    `FROM ${tableSql(child)} AS ${quoteIdent(alias)} WHERE ${where} ORDER BY ${order} LIMIT ${probe}`;
  return (
    `(SELECT row_to_json("x") FROM (SELECT ` +
    `coalesce(json_agg("c"."j" ORDER BY "c"."n") FILTER (WHERE "c"."n" <= ${limit}), '[]'::json) AS "items", ` +
    `count(*) > ${limit} AS "has_more" FROM (${children}) AS "c") AS "x")`
  );
}

/**
 * The JSON entries of the relations `names` of `table` aliased `outer`, in
 * the given order, each under the relation's name: forward gives the target
 * row object or null; inverse gives `{"items": [...], "has_more": bool}`
 * with at most the declared limit (default 50) children in the declared
 * order plus the child's primary key. Throws a plain `Error` for an unknown
 * or non-expandable relation; a `HookError` for a scope that cannot be
 * requalified.
 */
export function expansionEntries(
  ctx: ExpandContext,
  table: TableDescriptor,
  names: readonly string[],
  outer: string,
): OutputEntry[] {
  return names.map((name) => {
    const relation = table.relations.find((r) => r.name === name);
    if (!relation) throw new Error(`relation "${table.name}" has no relation named "${name}"`);
    if (!relation.expandable) throw new Error(`relation "${name}" of "${table.name}" is not expandable`);
    const sql =
      relation.kind === "forward" ? forward(ctx, table, relation, outer) : inverse(ctx, table, relation, outer);
    return { name: relation.name, sql };
  });
}
