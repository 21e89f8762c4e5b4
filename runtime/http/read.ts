/**
 * GET /<resource>/{id} (or `/{a}/{b}` for a composite key, decision 1376): the read operation (spec: Generated operations);
 * its query parameters are `select` and `expand`, read as a list reads them. A missing row, or one a BeforeQuery
 * hook hides, is a 404 problem document. The answer carries an `ETag`; a
 * matching `If-None-Match` is answered 304 (decision 1329). A read without
 * expansion or scope is sent with the other such reads of its turn
 * (runtime/http/read-batch.ts, decision 1348; a composite key is read alone); the resource's share of the
 * pool admits each statement, so hooks run before a slot is taken.
 */
import type { Context } from "hono";
import type { ScalarValue } from "../predicate.js";
import { parseReadQuery } from "../query/index.js";
import { compileRead, encodeRow } from "../sql/index.js";
import { ProblemError, problem } from "../problem.js";
import { expansionScopes, scopeOf, type ResourceContext } from "./context.js";
import { bodyEntityTag, noneMatchHolds, parseTagCondition, rowEntityTag, rowVersionTag } from "./conditional.js";
import { queryAdmitted, readByKey, type KeyedRead } from "./read-batch.js";
import { emptyAnswer, jsonText } from "./respond.js";
import { pathKey } from "./item-key.js";
import { queryParams } from "./query-string.js";
import { requestHeader } from "./request-header.js";

/** The 404 of an item route, at `path.id` (at `path` for a composite key, which is several parameters). */
export function notFound(rc: ResourceContext): ProblemError {
  return problem("not-found", `No ${rc.table.name} row has this key.`, [
    { location: rc.table.primaryKey.length > 1 ? "path" : "path.id", detail: "no such row" },
  ]);
}

/** Handles one read request. */
export async function handleRead(rc: ResourceContext, c: Context): Promise<Response> {
  const key = pathKey(rc.table, c);
  const q = parseReadQuery(rc.service, rc.table, queryParams(c));
  const scope = await scopeOf(rc, rc.table.name, "read", c);
  const scopeFor = await expansionScopes(rc, q.expand, c);
  let found: KeyedRead;
  const whole = q.expand.length === 0 && q.select === undefined;
  if (whole && scope === undefined && !Array.isArray(key)) {
    // Answered with the other plain reads of this resource in this turn (decision 1348).
    found = await readByKey(rc, key as ScalarValue);
  } else {
    const shape = q.select === undefined ? { expand: q.expand } : { expand: q.expand, select: q.select };
    const stmt = compileRead(rc.service, rc.table, key, shape, scope, { scopeFor });
    found = { row: (await queryAdmitted(rc, stmt)).rows[0], layout: stmt.layout };
  }
  if (found.row === undefined) throw notFound(rc);
  const body = encodeRow(found.row, found.layout);
  // The row's version tag is the digest of the whole row as served; a projected or expanded body is another text.
  const etag = whole ? rowEntityTag(rowVersionTag(body)) : bodyEntityTag(body);
  // The client's copy is current: 304 with the tag and no body (RFC 9110 §15.4.5).
  if (noneMatchHolds(parseTagCondition(requestHeader(c, "if-none-match")), etag)) return emptyAnswer(c, 304, { etag });
  return jsonText(c, body, 200, { etag });
}
