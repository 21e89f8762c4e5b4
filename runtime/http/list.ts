/**
 * GET /<resource>: the list operation (spec: Query grammar, Pagination,
 * List response shape). The page is read with one extra row to compute
 * `has_more` without counting; `count=exact` adds a separate count of the
 * whole filtered set. Every row also carries its sort-key values, so a page
 * with a next page ends with `next_cursor`, whether it was reached by page,
 * offset or cursor (docs/decisions/0500-cursor-format.md).
 */
import type { Context } from "hono";
import { decodeCursor, nextCursor, type CursorPosition } from "../cursor.js";
import { parseListQuery } from "../query/index.js";
import { compileList, encodeRow, extraElementsOf, type ListOptions } from "../sql/index.js";
import { expansionScopes, scopeOf, type ResourceContext } from "./context.js";
import { jsonText } from "./respond.js";
import { queryParams } from "./query-string.js";

/**
 * Handles one list request; errors propagate to the route's problem mapping.
 *
 * The body is `{"items", "page", "per_page", "has_more", ["next_cursor"],
 * ["total"]}` in that order. `page` is the offset page number, or on a
 * cursor request the number the cursor carries (the issuing page's plus
 * one). Query problems are refused before the cursor is read, so a request
 * with both learns of the cursor's problem on its second attempt.
 */
export async function handleList(rc: ResourceContext, c: Context): Promise<Response> {
  const params = queryParams(c);
  const q = parseListQuery(rc.service, rc.table, params);
  const position: CursorPosition | undefined = q.cursor === undefined ? undefined : decodeCursor(rc.table, q, q.cursor);
  const scope = await scopeOf(rc, rc.table.name, "list", c);
  const scopeFor = await expansionScopes(rc, q.expand, c);
  const options: ListOptions = { scopeFor, sortKeys: true };
  if (position) options.after = position.after;
  const stmts = compileList(rc.service, rc.table, q, scope, options);
  const [rows, count] = await Promise.all([
    (rc.readDb ?? rc.db).query(stmts.rows),
    stmts.count ? (rc.readDb ?? rc.db).query(stmts.count) : Promise.resolve(undefined),
  ]);
  const page = position?.page ?? q.page;
  const hasMore = rows.rows.length > q.perPage;
  const pageRows = hasMore ? rows.rows.slice(0, q.perPage) : rows.rows;
  const layout = stmts.rows.layout;
  let items = "";
  for (let i = 0; i < pageRows.length; i++) items += (i === 0 ? "" : ",") + encodeRow(pageRows[i], layout);
  let body = `{"items":[${items}],"page":${page},"per_page":${q.perPage},"has_more":${hasMore}`;
  if (hasMore) {
    const last = pageRows[pageRows.length - 1];
    body += `,"next_cursor":${JSON.stringify(nextCursor(rc.table, q.sort, extraElementsOf(last, layout), page + 1))}`;
  }
  if (count) body += `,"total":${Number(count.rows[0]?.n ?? 0)}`;
  return jsonText(c, body + "}");
}
