/**
 * The request id of the production layer (docs/deploy.md; decision
 * docs/decisions/1341-layer-without-headers-objects.md): the caller's
 * `X-Request-Id` when it is usable, else a new UUID; stored as
 * `c.get("requestId")` (the name Hono's own middleware uses, which the fault
 * log reads) and echoed in the answer's `X-Request-Id`.
 *
 * Under `@hono/node-server` the header is read from Node's request and
 * written on Node's response, which merges it into the head it writes.
 * Going through Hono's `c.req.header` and `c.header` instead built two
 * WHATWG `Headers` objects per request (every incoming header copied, and
 * the answer's headers rebuilt), a measured part of the layer's cost
 * (README, "Tuning"). Under any other runtime (`app.request` in tests, a
 * fetch-style server) it goes through Hono.
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { nodeBindings, requestHeader } from "../http/request-header.js";

/** The header carrying the id, in both directions. */
export const REQUEST_ID_HEADER = "x-request-id";

/** The context variable holding the id (Hono's `requestId` middleware uses the same name). */
export const REQUEST_ID_VARIABLE = "requestId";

/** The longest caller-chosen id kept, in characters (as Hono's middleware). */
const MAX_LENGTH = 255;

/** A caller-chosen id is kept only when it is letters, digits, `_`, `-` and `=` (as Hono's middleware). */
const USABLE = /^[\w\-=]+$/;

/**
 * Gives the request its id: stores it as `c.get("requestId")` and sets the
 * answer's `X-Request-Id`. Call before the request is routed on.
 * @returns the id
 */
export function assignRequestId(c: Context): string {
  const given = requestHeader(c, REQUEST_ID_HEADER);
  const id = typeof given === "string" && given.length <= MAX_LENGTH && USABLE.test(given) ? given : randomUUID();
  c.set(REQUEST_ID_VARIABLE as never, id as never);
  const node = nodeBindings(c);
  if (node && !node.outgoing.headersSent) node.outgoing.setHeader(REQUEST_ID_HEADER, id);
  else c.header(REQUEST_ID_HEADER, id);
  return id;
}
