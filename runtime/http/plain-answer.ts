/**
 * Answers built from a plain header record, without the WHATWG `Headers`
 * object Hono's `c.body` starts for a record of two or more headers
 * (docs/decisions/1352-answers-without-headers-objects.md). Under
 * `@hono/node-server` such an answer keeps the record as it is and Node
 * writes it with `writeHead`; through `c.body` every header is validated
 * and copied into a `Headers`, then copied back into a record to be
 * written.
 *
 * `c.body` also merges the headers an earlier handler prepared with
 * `c.header()` before calling `next()`, which an answer built otherwise
 * would lose (Hono merges only what was set on `c.res`). So the plain
 * answer is taken only when every handler the request has run so far,
 * the current one included, is one of ours that never prepares a header
 * ({@link preparesNoHeaders}); with any other middleware in front (a
 * user's `--middleware`, Hono's `requestId` or `cors`) the answer is
 * `c.body`'s, as before.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { ContentfulStatusCode, StatusCode } from "hono/utils/http-status";

/** The handlers known to prepare no header with `c.header()`: resc's own middleware and route handlers. */
const NEUTRAL = new WeakSet<object>();

/**
 * Declares `handler` one that never calls `c.header()` (directly or through
 * anything it runs) before the answer is built, so a request that ran only
 * such handlers may be answered by {@link plainAnswer} with a plain header
 * record (decision 1352). Returns `handler` itself; throws nothing. Only
 * for resc's own handlers: a wrong declaration loses the headers the
 * handler prepares.
 */
export function preparesNoHeaders<H extends MiddlewareHandler | ((c: Context) => Promise<Response>)>(handler: H): H {
  NEUTRAL.add(handler);
  return handler;
}

/**
 * Whether no handler of this request so far (indices 0 to `c.req.routeIndex`)
 * can have prepared a header: each is one {@link preparesNoHeaders} declared
 * (decision 1352). False when the context did not come through Hono's
 * routing (no match to read); throws nothing.
 */
export function nothingPrepared(c: Context): boolean {
  let routes: ReturnType<typeof matchedRoutes>;
  try {
    routes = matchedRoutes(c);
  } catch {
    return false;
  }
  const current = c.req.routeIndex;
  if (!(current < routes.length)) return false;
  for (let i = 0; i <= current; i++) if (!NEUTRAL.has(routes[i]!.handler)) return false;
  return true;
}

/**
 * `c.body(data, status, headers)`, built as `new Response(data, {status,
 * headers})` when {@link nothingPrepared} holds: the same status, body and
 * headers, with `headers` kept as the record it is. A later middleware that
 * changes `c.res.headers` still can (the record becomes a `Headers` then).
 * Used by every response helper (respond.ts, through `bodyWithRequestId`;
 * decision 1352). Throws nothing of its own.
 * @param data the body text, or null for an answer without one (204, 304)
 */
export function plainAnswer(
  c: Context,
  data: string | null,
  status: StatusCode,
  headers: Record<string, string>,
): Response {
  if (nothingPrepared(c)) return new Response(data, { status, headers });
  return data === null ? c.body(null, status, headers) : c.body(data, status as ContentfulStatusCode, headers);
}
