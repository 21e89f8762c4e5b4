/**
 * PATCH and DELETE on the collection path with the list grammar's filters
 * (docs/decisions/1333-filtered-writes.md), on resources that opt in with
 * `filtered_writes = true`: every row the filters, the search and the
 * caller's BeforeQuery scope match is written or removed, in one
 * transaction, at least one filter required; `Prefer: max-affected=N`
 * refuses, writing nothing, when more rows would change.
 */
import type { Context } from "hono";
import type { Executor, QueryResult, SqlStatement } from "../exec/executor.js";
import type { CommitEvent } from "../hooks.js";
import { refuseUnchecked, refuseUnreadableReferences, writeCheckOf } from "./access.js";
import { badRequest, problem, type ProblemItem } from "../problem.js";
import { parseListQuery, parseUpdateBody } from "../query/index.js";
import { vocabulary } from "../query/vocabulary.js";
import { compileDeleteWhere, compileUpdateWhere, encodeRow, type RowFilter } from "../sql/index.js";
import { readJsonBody } from "./body.js";
import { scopeOf, type ResourceContext } from "./context.js";
import { readPrefer } from "./prefer.js";
import { jsonText } from "./respond.js";
import { afterCommit, keyOf, refuseCommitHookWithoutTransaction } from "./write.js";
import { stillReferenced } from "./write-refusals.js";

/** List parameters that select, order or page rows: meaningless for a write, so refused. */
const NOT_FILTERS = ["select", "sort", "expand", "page", "per_page", "offset", "cursor", "count"];

/**
 * The rows a filtered write names: the list grammar's filters and search.
 * @throws ProblemError 400 for a parameter that is not a filter, a filter
 *   the list would refuse, or no filter at all
 */
function rowsNamed(rc: ResourceContext, c: Context): Omit<RowFilter, "scope"> {
  const params = new URL(c.req.url).searchParams;
  const vocab = vocabulary(rc.table);
  const allowed = [
    ...vocab.filterable,
    "or",
    "and",
    "not",
    "filter",
    ...(vocab.searchable.length > 0 ? ["search"] : []),
  ];
  const refused: ProblemItem[] = [...new Set(params.keys())]
    .filter((name) => NOT_FILTERS.includes(name))
    .map((name) => ({
      location: `query.${name}`,
      detail: `a filtered write takes filters only, not ${name}`,
      allowed,
    }));
  if (refused.length > 0) throw badRequest("invalid-query", refused);
  const q = parseListQuery(rc.service, rc.table, params);
  if (q.where === undefined && q.search === undefined)
    throw badRequest("invalid-query", [
      { location: "query", detail: "a filtered write needs at least one filter: it would change every row", allowed },
    ]);
  return { ...(q.where ? { where: q.where } : {}), ...(q.search !== undefined ? { search: q.search } : {}) };
}

/**
 * `Prefer: max-affected=N`, or undefined when not given.
 * @throws ProblemError 400 at `header.prefer` for a value that is not a whole number
 */
function maxAffected(c: Context): number | undefined {
  const text = readPrefer(c.req.header("prefer")).get("max-affected");
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text))
    throw badRequest("invalid-query", [{ location: "header.prefer", detail: "max-affected takes a whole number" }]);
  return Number(text);
}

/**
 * Runs `stmt` in a transaction, refusing (and so rolling back) when it
 * changed more than `max` rows.
 */
async function writeBounded(
  rc: ResourceContext,
  stmt: SqlStatement,
  max: number | undefined,
  checked = false,
): Promise<QueryResult["rows"]> {
  const run = async (db: Executor): Promise<QueryResult["rows"]> => {
    const r = await db.query(stmt);
    if (checked) refuseUnchecked(r.rows, () => "body");
    if (max !== undefined && r.rows.length > max)
      throw problem(
        "max-affected",
        `The request would change ${r.rows.length} rows; Prefer: max-affected=${max} allows ${max}. Nothing was written.`,
        [{ location: "header.prefer", detail: `${r.rows.length} rows match, more than max-affected=${max}` }],
      );
    return r.rows;
  };
  if (!rc.table.resource?.disableTransactions || checked) return rc.db.transaction(run);
  if (max !== undefined)
    throw badRequest("invalid-query", [
      {
        location: "header.prefer",
        detail: "max-affected needs a transaction to undo, and this resource disables them",
      },
    ]);
  return run(rc.db);
}

/** PATCH /<resource>?<filters>: 200 with every written row, in no particular order. */
export async function handleFilteredUpdate(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  const named = rowsNamed(rc, c);
  const max = maxAffected(c);
  const { fields } = parseUpdateBody(rc.table, await readJsonBody(c));
  await refuseUnreadableReferences(rc, c, [fields], false);
  const scope = await scopeOf(rc, rc.table.name, "update", c);
  const check = writeCheckOf(rc, c, "update");
  const stmt = compileUpdateWhere(rc.service, rc.table, fields, { ...named, ...(scope ? { scope } : {}) }, check);
  const rows = await writeBounded(rc, stmt, max, check !== undefined);
  const texts = rows.map((r) => encodeRow(r, stmt.layout));
  for (const j of texts) {
    const row = JSON.parse(j) as Record<string, unknown>;
    await afterCommit(rc, c, { table: rc.table.name, operation: "update", row, key: keyOf(rc, row) });
  }
  return jsonText(
    c,
    `[${texts.join(",")}]`,
    200,
    max === undefined ? {} : { "preference-applied": `max-affected=${max}` },
  );
}

/** DELETE /<resource>?<filters>: 200 with the key of every removed row. */
export async function handleFilteredDelete(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  const named = rowsNamed(rc, c);
  const max = maxAffected(c);
  const scope = await scopeOf(rc, rc.table.name, "delete", c);
  let rows: QueryResult["rows"];
  try {
    rows = await writeBounded(
      rc,
      compileDeleteWhere(rc.service, rc.table, { ...named, ...(scope ? { scope } : {}) }),
      max,
    );
  } catch (e) {
    // A matched row other rows still refer to: the 409 of a DELETE by key, located at the query (no body).
    throw stillReferenced(rc, e, undefined) ?? e;
  }
  const texts = rows.map((r) => String(r.j));
  const soft = rc.table.softDeleteColumn !== undefined;
  for (const j of texts) {
    const event: CommitEvent = {
      table: rc.table.name,
      operation: "delete",
      key: keyOf(rc, JSON.parse(j) as Record<string, unknown>),
    };
    if (soft) event.softDeleted = true;
    await afterCommit(rc, c, event);
  }
  return jsonText(
    c,
    `[${texts.join(",")}]`,
    200,
    max === undefined ? {} : { "preference-applied": `max-affected=${max}` },
  );
}
