/**
 * Request ids (docs/deploy.md, "Logs"; decision
 * docs/decisions/1341-layer-without-headers-objects.md): the caller's
 * `X-Request-Id` when it is usable, else a new UUID; stored as
 * `c.get("requestId")` (the name Hono's own middleware uses) and echoed in
 * the answer's `X-Request-Id`. One rule for what a usable id is, for the
 * production layer (`resc/ops`) and the fault log alike.
 *
 * Under `@hono/node-server` the caller's id is read from Node's parsed
 * request headers (`requestHeader`): Hono's `c.req.header` copied every
 * request header into a WHATWG `Headers` first, a measured part of the
 * layer's cost (README, "Tuning"). The answer's header is set through Hono.
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { requestHeader } from "./request-header.js";

/** The header carrying the id, in both directions (lowercase, as Node and `Headers` give names). */
export const REQUEST_ID_HEADER = "x-request-id";

/** The context variable holding the id (Hono's `requestId` middleware uses the same name). */
export const REQUEST_ID_VARIABLE = "requestId";

/** The longest caller-chosen id kept, in characters (as Hono's middleware). */
const MAX_LENGTH = 255;

/** A caller-chosen id is kept only when it is letters, digits, `_`, `-` and `=` (as Hono's middleware). */
const USABLE = /^[\w\-=]+$/;

/**
 * The caller's `X-Request-Id` when it is usable (1 to 255 characters of
 * `[A-Za-z0-9_=-]`), else undefined: an id that could break a log line or
 * smuggle text into one is never kept.
 */
export function callerRequestId(c: Context): string | undefined {
  const given = requestHeader(c, REQUEST_ID_HEADER);
  return given !== undefined && given.length <= MAX_LENGTH && USABLE.test(given) ? given : undefined;
}

/**
 * Gives the request its id (the caller's, {@link callerRequestId}, else a
 * new UUID), stores it as `c.get("requestId")` and sets the answer's
 * `X-Request-Id`. Call before the request is routed on.
 * @returns the id
 */
export function assignRequestId(c: Context): string {
  const id = callerRequestId(c) ?? randomUUID();
  c.set(REQUEST_ID_VARIABLE as never, id as never);
  // Through Hono, so middleware sees it in c.res.headers. Set on Node's response instead, it made Node merge
  // every header of the answer one by one with its checks (writeHead's slow path), which profiled dearer
  // than the Headers object Hono starts here and that an answer with an ETag builds anyway (decision 1341).
  c.header(REQUEST_ID_HEADER, id);
  return id;
}
