/**
 * GET /<resource>/{id}: the read operation (spec: Generated operations);
 * `expand` is its only query parameter. A missing row, or one a BeforeQuery
 * hook hides, is a 404 problem document.
 */
import type { Context } from "hono";
import { parseKey, parseReadQuery } from "../query/index.js";
import { compileRead, encodeRow } from "../sql/index.js";
import { ProblemError, problem } from "../problem.js";
import { expansionScopes, scopeOf, type ResourceContext } from "./context.js";
import { jsonText } from "./respond.js";

/** The 404 of an item route. */
export function notFound(rc: ResourceContext): ProblemError {
  return problem("not-found", `No ${rc.table.name} row has this key.`, [
    { location: "path.id", detail: "no such row" },
  ]);
}

/** Handles one read request. */
export async function handleRead(rc: ResourceContext, c: Context): Promise<Response> {
  const key = parseKey(rc.table, c.req.param("id") ?? "");
  const q = parseReadQuery(rc.service, rc.table, new URL(c.req.url).searchParams);
  const scope = await scopeOf(rc, rc.table.name, "read", c);
  const scopeFor = await expansionScopes(rc, q.expand, c);
  const stmt = compileRead(rc.service, rc.table, key, q.expand, scope, { scopeFor });
  const row = (await (rc.readDb ?? rc.db).query(stmt)).rows[0];
  if (row === undefined) throw notFound(rc);
  return jsonText(c, encodeRow(row, stmt.layout));
}
