/**
 * GET /<resource>: the list operation (spec: Query grammar, List response
 * shape). The page is read with one extra row to compute `has_more` without
 * counting; `count=exact` adds a separate count of the whole filtered set.
 */
import type { Context } from "hono";
import { parseListQuery } from "../query/index.js";
import { compileList } from "../sql/index.js";
import { expansionScopes, scopeOf, type ResourceContext } from "./context.js";
import { jsonText } from "./respond.js";

/** Handles one list request; errors propagate to the route's problem mapping. */
export async function handleList(rc: ResourceContext, c: Context): Promise<Response> {
  const params = new URL(c.req.url).searchParams;
  const q = parseListQuery(rc.service, rc.table, params);
  const scope = await scopeOf(rc, rc.table.name, "list", c);
  const scopeFor = await expansionScopes(rc, q.expand, c);
  const stmts = compileList(rc.service, rc.table, q, scope, { scopeFor });
  const [rows, count] = await Promise.all([
    rc.db.query(stmts.rows),
    stmts.count ? rc.db.query(stmts.count) : Promise.resolve(undefined),
  ]);
  const hasMore = rows.rows.length > q.perPage;
  const items = (hasMore ? rows.rows.slice(0, q.perPage) : rows.rows).map((r) => r.j).join(",");
  let body = `{"items":[${items}],"page":${q.page},"per_page":${q.perPage},"has_more":${hasMore}`;
  if (count) body += `,"total":${Number(count.rows[0]?.n ?? 0)}`;
  return jsonText(c, body + "}");
}
