/**
 * The statements of a list request (spec: Query grammar, List response
 * shape): one page of rows as JSON, and optionally the count of the whole
 * filtered set. Statement shape decided in
 * docs/decisions/0401-list-statement-shape.md.
 */
import type { SqlStatement } from "../exec/executor.js";
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate } from "../predicate.js";
import type { ListQuery } from "../query/types.js";
import { Params } from "./bind.js";
import { compileFilter, whereClause } from "./filter.js";
import { columnSqlName, quoteIdent, tableSql } from "./ident.js";
import { Aliases, type ListOptions } from "./options.js";
import { SchemaCache } from "./schema-cache.js";
import { orderByTerms, orderKeys } from "./order.js";
import { rowMembers } from "./row.js";
import { memberSelect, type RowStatement } from "./members.js";
import { compileSeek, sortKeyTexts } from "./seek.js";

/**
 * The LIMIT of a page: `perPage + 1` written as an integer literal. It is a
 * number the query parser computed and capped (1 to MaxPageSize), never
 * request text; a literal lets PostgreSQL cost the statement for the real
 * page size, where a parameter makes it assume a tenth of the table and
 * re-plan every execution (decision 0801). Throws for anything but a
 * positive safe integer.
 */
function pageLimit(perPage: number): string {
  if (!Number.isSafeInteger(perPage) || perPage < 1) throw new Error(`per_page ${perPage} is not a positive integer`);
  return String(perPage + 1);
}

/** The statements of one list request. */
export interface ListStatements {
  /**
   * At most `perPage + 1` rows, each the members of its row object
   * (`rows.layout`; `encodeRow` writes the object) and, with `sortKeys`, its
   * sort-key values (`extraElementsOf`); the extra row only tells `has_more`.
   */
  rows: RowStatement;
  /** Present when `q.count`: one row with text column `n`, the size of the whole filtered set. */
  count?: SqlStatement;
}

/**
 * What the page subquery carries out: the declared stored columns, so an
 * undeclared wide column (Pagila's `film.fulltext`) is neither sorted nor
 * copied. A table with computed columns keeps every column, since their SQL
 * may name columns the schema does not declare.
 */
function pageColumns(table: TableDescriptor): string {
  return pageColumnLists.get(table, "", () =>
    table.columns.some((c) => c.computed !== undefined)
      ? `"t0".*`
      : table.columns.map((c) => `"t0".${columnSqlName(c)}`).join(", "),
  );
}

/** {@link pageColumns} per table: it depends on the descriptor only (decision 0802). */
const pageColumnLists = new SchemaCache<TableDescriptor, string>();

/**
 * Compiles a validated list query on `table`.
 *
 * Rows are filtered by `q.where` AND `scope` AND the search, ordered by
 * `q.sort` (already ending with the primary-key tiebreak) with each column's
 * declared null placement, and paged by `LIMIT perPage + 1` (a literal, so
 * a prepared statement can use a generic plan) and, when not 0, `OFFSET`
 * (bound). The page is selected in a subquery; the row members and sort
 * keys are computed over its rows only (docs/decisions/0801-list-paging-clauses.md)
 * and the handler writes each row object from them
 * (docs/decisions/0805-row-members-as-json-array.md). Expansions are
 * correlated subqueries, a member each, so the count statement never joins
 * and is never multiplied by children.
 * `q.cursor` is not read here: the cursor module decodes it and passes the
 * last row's sort-key values as `options.after` (keyset seek, applied to
 * the rows, not to the count). Throws a plain `Error` for names the
 * descriptors do not know, a cursor of the wrong length, or a scope that
 * cannot be requalified onto an expanded table (`options.scopeFor`).
 */
export function compileList(
  service: ServiceDescriptor,
  table: TableDescriptor,
  q: ListQuery,
  scope?: Predicate,
  options: ListOptions = {},
): ListStatements {
  const from = ` FROM ${tableSql(table)} AS "t0"`;
  const filter = { where: q.where, scope, search: q.search };

  const params = new Params();
  const aliases = new Aliases();
  const alias = aliases.next();
  // With expansions the page is a common table expression the expansions read once (decision 1340).
  // Its name is one no user table is likely to have: a table of that name could not be expanded here.
  const pageCte = q.expand.length > 0 ? "resc_page" : undefined;
  const members = rowMembers(
    service,
    table,
    alias,
    { select: q.select, expand: q.expand },
    { params, aliases, options, ...(pageCte ? { page: pageCte } : {}) },
  );
  const keys = orderKeys(table, q.sort, alias);
  let condition = compileFilter(table, alias, params, filter);
  if (options.after !== undefined) {
    const seek = `(${compileSeek(table, keys, options.after, params)})`;
    condition = condition === undefined ? seek : `${condition} AND ${seek}`;
  }
  const where = whereClause(condition);
  const order = keys.length === 0 ? "" : ` ORDER BY ${orderByTerms(keys)}`;
  const limit = ` LIMIT ${pageLimit(q.perPage)}`;
  const offset = q.offset === 0 ? "" : ` OFFSET ${params.typed(String(q.offset), "bigint")}`;
  // The page is picked first, then the row members and sort keys are computed for its rows only
  // (not for rows skipped by OFFSET or sorted away), decision 0801; the handler writes the row
  // objects from them (decision 0805).
  const picked = `SELECT ${pageColumns(table)}${from}${where}${order}${limit}${offset}`;
  const select = memberSelect(members, options.sortKeys ? sortKeyTexts(table, keys) : []);
  const text =
    pageCte === undefined
      ? `SELECT ${select.list} FROM (${picked}) AS "t0"${order}`
      : `WITH ${quoteIdent(pageCte)} AS (${picked}) SELECT ${select.list} FROM ${quoteIdent(pageCte)} AS "t0"` +
        `${(members.joins ?? []).join("")}${order}`;
  const rows: RowStatement = { ...params.statement(text), layout: select.layout };

  if (!q.count) return { rows };
  const countParams = new Params();
  const countWhere = whereClause(compileFilter(table, "t0", countParams, filter));
  return { rows, count: countParams.statement(`SELECT count(*)::text AS "n"${from}${countWhere}`) };
}
