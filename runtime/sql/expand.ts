/**
 * Relation expansion (spec: Expansion): forward references and inverse
 * collections read in the base rows' statement (one snapshot), so an
 * unexpanded request joins nothing (docs/decisions/0401-list-statement-shape.md):
 * correlated subqueries for a read, joins read once for a whole list page
 * (docs/decisions/1340-expansions-per-page.md).
 */
import { DEFAULT_EXPAND_LIMIT } from "../descriptor.js";
import type { ColumnDescriptor, RelationDescriptor, ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate } from "../predicate.js";
import { HookError } from "../hook-error.js";
import type { Params } from "./bind.js";
import { columnRef, findColumn } from "./column.js";
import { qualified, quoteIdent, tableSql } from "./ident.js";
import type { Aliases, CompileOptions } from "./options.js";
import { orderByTerms, orderKeys, withKeyTiebreak } from "./order.js";
import { COLLECTION_KEYS, tableRow, type OutputEntry } from "./output.js";
import { tableMembers } from "./members.js";
import { compileWhere } from "./where.js";

/** What an expansion needs from the statement being built. */
export interface ExpandContext {
  service: ServiceDescriptor;
  params: Params;
  aliases: Aliases;
  options: CompileOptions;
  /**
   * The common table expression holding a list page's rows (columns as
   * stored), when the statement reads a whole page: each expansion is then
   * a `LEFT JOIN` read once for the page instead of a subquery run per row
   * (docs/decisions/1340-expansions-per-page.md). Absent for a read.
   */
  page?: string;
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
    case "related":
      // Correlated on an unqualified column of the target: it moves with the alias.
      return;
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

/** The alias of the derived row a {@link targetRow} reads: long, so no table's own name meets it. */
const ROW = `"resc_row"`;

/**
 * The target row object as a direct read returns it (visible columns and
 * the computed ones its resource computes): `json`, its JSON, to be
 * selected from a FROM list that ends with `from`. The members are a
 * `LATERAL` derived table with no FROM of its own, which PostgreSQL merges
 * into the query, so `row_to_json` takes them as one row expression
 * instead of running a subquery per row
 * (docs/decisions/1343-expanded-rows-without-subqueries.md). The
 * members' unqualified names still mean the target's columns, and
 * `"resc_row".*` is the whole derived row even if the table has a column
 * named so.
 */
function targetRow(target: TableDescriptor, alias: string): { json: string; from: string } {
  return { json: `row_to_json(${ROW}.*)`, from: `, LATERAL (SELECT ${tableRow(target, alias).list}) AS ${ROW}` };
}

/**
 * A list page's target row as the JSON array of its members, the same
 * `json_build_array` arguments as a row's `j` (runtime/sql/members.ts):
 * no per-row formatting of timestamps in SQL (`CASE`, `btrim`, `||`), no
 * keys, and Node writes the object with the target's layout
 * (docs/decisions/1346-expanded-rows-as-member-arrays.md). Undefined when a
 * member of the target needs a column of its own (a document, a formatted
 * array, `character(n)`, past 100 members): its rows keep
 * {@link targetRow}'s object.
 */
function targetElements(target: TableDescriptor, alias: string): string | undefined {
  const members = tableMembers(target, alias);
  if (members.columns.length > 0 || members.elements.length === 0) return undefined;
  return `json_build_array(${members.elements.join(", ")})`;
}

function forward(
  ctx: ExpandContext,
  table: TableDescriptor,
  relation: RelationDescriptor,
  outer: string,
): Omit<OutputEntry, "name"> {
  const target = findTable(ctx.service, relation.target);
  const alias = ctx.aliases.next();
  const local = findColumn(table, relation.column);
  const targetKey = columnRef(findColumn(target, relation.targetColumn), alias);
  if (ctx.page !== undefined)
    return forwardForPage(ctx, relation, target, alias, targetKey, columnRef(local, outer), local);
  const where = targetConditions(ctx, relation, target, `${targetKey} = ${columnRef(local, outer)}`, alias);
  // The referenced column is a key of the target, so at most one row; none gives JSON null.
  const row = targetRow(target, alias);
  return { sql: `(SELECT ${row.json} FROM ${tableSql(target)} AS ${quoteIdent(alias)}${row.from} WHERE ${where})` };
}

/**
 * A forward relation for a whole page: the target rows the page refers to,
 * each row object built once in a derived table of its own (so a computed
 * column's unqualified names mean the target's there, and the base row's in
 * the outer select, which sees only `resc_expansion_*` columns of it),
 * joined on the key. A row whose reference matches nothing, or a row out of
 * scope, gives NULL, which the row writes as JSON null.
 */
function forwardForPage(
  ctx: ExpandContext,
  relation: RelationDescriptor,
  target: TableDescriptor,
  alias: string,
  targetKey: string,
  localRef: string,
  local: ColumnDescriptor,
): Omit<OutputEntry, "name"> {
  const joined = quoteIdent(`e${alias}`);
  const inPage = `${targetKey} = ANY (ARRAY(SELECT ${columnRef(local, ctx.page!)} FROM ${quoteIdent(ctx.page!)}))`;
  const where = targetConditions(ctx, relation, target, inPage, alias);
  const elements = targetElements(target, alias);
  const row = elements === undefined ? targetRow(target, alias) : { json: elements, from: "" };
  return {
    sql: `${joined}."resc_expansion_value"`,
    join:
      ` LEFT JOIN (SELECT ${targetKey} AS "resc_expansion_key", ${row.json} AS "resc_expansion_value" ` +
      `FROM ${tableSql(target)} AS ${quoteIdent(alias)}${row.from} WHERE ${where}) AS ${joined} ` +
      `ON ${joined}."resc_expansion_key" = ${localRef}`,
    ...(elements === undefined ? {} : { elementsOf: target }),
  };
}

/** The collection object's member names as SQL column aliases. */
const ITEMS = quoteIdent(COLLECTION_KEYS.items);
const MORE = quoteIdent(COLLECTION_KEYS.more);

/** The name of the rank column of a page's children: long, so no table's own column meets it. */
const RANK = `"resc_expansion_rank"`;

function inverse(
  ctx: ExpandContext,
  table: TableDescriptor,
  relation: RelationDescriptor,
  outer: string,
): Omit<OutputEntry, "name"> {
  const child = findTable(ctx.service, relation.target);
  const alias = ctx.aliases.next();
  const parentKey = findColumn(table, relation.targetColumn);
  const childKey = columnRef(findColumn(child, relation.column), alias);
  const order = orderByTerms(orderKeys(child, withKeyTiebreak(child, relation.order), alias));
  const cap = relation.limit ?? DEFAULT_EXPAND_LIMIT;
  const limit = ctx.params.typed(String(cap), "bigint");
  const probe = ctx.params.typed(String(cap + 1), "bigint");
  if (ctx.page !== undefined)
    return inverseForPage(
      ctx,
      relation,
      child,
      alias,
      { childKey, order, limit, probe },
      {
        parentKey: columnRef(parentKey, outer),
        pageKey: columnRef(parentKey, ctx.page),
      },
    );
  const where = targetConditions(ctx, relation, child, `${childKey} = ${columnRef(parentKey, outer)}`, alias);
  // Reads cap + 1 children: the extra one only tells has_more (spec: Expansion rule 5).
  const row = targetRow(child, alias);
  const children =
    `SELECT ${row.json} AS "j", row_number() OVER (ORDER BY ${order}) AS "n" ` +
    `FROM ${tableSql(child)} AS ${quoteIdent(alias)}${row.from} WHERE ${where} ORDER BY ${order} LIMIT ${probe}`;
  return {
    sql:
      `(SELECT row_to_json("x") FROM (SELECT ` +
      `coalesce(json_agg("c"."j" ORDER BY "c"."n") FILTER (WHERE "c"."n" <= ${limit}), '[]'::json) AS ${ITEMS}, ` +
      `count(*) > ${limit} AS ${MORE} FROM (${children}) AS "c") AS "x")`,
  };
}

/**
 * An inverse collection for a whole page: the children of every row of the
 * page in one scan (`= ANY` of the page's keys, so an index on the child's
 * column serves it), ranked per parent in the declared order, the first
 * cap + 1 kept, each row object built only for the first cap, grouped per
 * parent and joined. The same items and `has_more` as the per-row subquery.
 */
function inverseForPage(
  ctx: ExpandContext,
  relation: RelationDescriptor,
  child: TableDescriptor,
  alias: string,
  sql: { childKey: string; order: string; limit: string; probe: string },
  keys: { parentKey: string; pageKey: string },
): Omit<OutputEntry, "name"> {
  const grouped = quoteIdent(`e${alias}`);
  const inPage = `${sql.childKey} = ANY (ARRAY(SELECT ${keys.pageKey} FROM ${quoteIdent(ctx.page!)}))`;
  const where = targetConditions(ctx, relation, child, inPage, alias);
  const ranked =
    `SELECT ${quoteIdent(alias)}.*, ${sql.childKey} AS "resc_expansion_parent", ` +
    `row_number() OVER (PARTITION BY ${sql.childKey} ORDER BY ${sql.order}) AS ${RANK} ` +
    `FROM ${tableSql(child)} AS ${quoteIdent(alias)} WHERE ${where}`;
  const elements = targetElements(child, "c");
  const row = elements === undefined ? targetRow(child, "c") : { json: elements, from: "" };
  const aggregate = `json_agg(${row.json} ORDER BY "c".${RANK}) FILTER (WHERE "c".${RANK} <= ${sql.limit})`;
  const join =
    ` LEFT JOIN (SELECT "c"."resc_expansion_parent", ${aggregate} AS "resc_expansion_items", ` +
    `count(*) > ${sql.limit} AS "resc_expansion_more" ` +
    `FROM (${ranked}) AS "c"${row.from} WHERE "c".${RANK} <= ${sql.probe} GROUP BY "c"."resc_expansion_parent") AS ${grouped} ` +
    `ON ${grouped}."resc_expansion_parent" = ${keys.parentKey}`;
  // The joined columns carry resc_ names only, so a computed column's unqualified names still mean the base row's.
  const items = `coalesce(${grouped}."resc_expansion_items", '[]'::json)`;
  const more = `coalesce(${grouped}."resc_expansion_more", false)`;
  // A page's select reads `collection` (members.ts); `sql` builds the object for a reader of entries that
  // does not, its items then being member arrays when `elementsOf` is set.
  return {
    sql: `(SELECT row_to_json("x") FROM (SELECT ${items} AS ${ITEMS}, ${more} AS ${MORE}) AS "x")`,
    join,
    collection: { items, more },
    ...(elements === undefined ? {} : { elementsOf: child }),
  };
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
    const entry =
      relation.kind === "forward" ? forward(ctx, table, relation, outer) : inverse(ctx, table, relation, outer);
    return { name: relation.name, ...entry };
  });
}
