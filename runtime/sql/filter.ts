/**
 * The row filter of a read: the request's predicate, the caller's scope
 * (hook predicates) and the search, conjoined.
 */
import type { TableDescriptor } from "../descriptor.js";
import type { Predicate } from "../predicate.js";
import type { Params } from "./bind.js";
import { compileSearch } from "./search.js";
import { compileWhere } from "./where.js";

/** The parts of a filter; each is optional. */
export interface FilterParts {
  where?: Predicate;
  scope?: Predicate;
  /** Search text; an empty string searches nothing (no condition). */
  search?: string;
}

/**
 * The conjunction of the present parts over `table` aliased `alias`, each
 * parenthesised, or undefined when none is present. Values go to `params`.
 */
export function compileFilter(
  table: TableDescriptor,
  alias: string,
  params: Params,
  parts: FilterParts,
): string | undefined {
  const conds: string[] = [];
  if (parts.where) conds.push(compileWhere(table, parts.where, alias, params));
  if (parts.scope) conds.push(compileWhere(table, parts.scope, alias, params));
  if (parts.search !== undefined && parts.search !== "") conds.push(compileSearch(table, parts.search, alias, params));
  return conds.length === 0 ? undefined : conds.map((c) => `(${c})`).join(" AND ");
}

/** ` WHERE <condition>` or the empty string. */
export function whereClause(condition: string | undefined): string {
  return condition === undefined ? "" : ` WHERE ${condition}`;
}
