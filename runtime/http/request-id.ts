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
 * layer's cost (README, "Tuning"). The answer's header goes into the header
 * record the handler answers with (`bodyWithRequestId`), and every answer
 * built otherwise gets it afterwards (`echoRequestId`): set with Hono's
 * `c.header` before routing, it was lost on answers a handler built itself
 * (docs/decisions/1350-request-id-in-the-answer-record.md).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { StatusCode } from "hono/utils/http-status";
import { plainAnswer } from "./plain-answer.js";
import { requestHeader } from "./request-header.js";

/** The header carrying the id, in both directions (lowercase, as Node and `Headers` give names). */
export const REQUEST_ID_HEADER = "x-request-id";

/** The context variable holding the id (Hono's `requestId` middleware uses the same name). */
export const REQUEST_ID_VARIABLE = "requestId";

/**
 * The context variable through which the layer asks for its id in the
 * answer: the id while no answer carries it, then the `Response` that was
 * built carrying it. Set only by {@link assignRequestId}, so an app whose
 * ids come from elsewhere (Hono's own middleware) gets no header from here.
 */
const ECHO_VARIABLE = "rescRequestIdEcho";

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
 * new UUID) and stores it as `c.get("requestId")`. The answer's
 * `X-Request-Id` is written by {@link bodyWithRequestId} when the handler
 * answers through it, else by {@link echoRequestId}, which the caller must
 * run once the answer is built. Call before the request is routed on.
 * @returns the id
 */
export function assignRequestId(c: Context): string {
  const id = callerRequestId(c) ?? randomUUID();
  c.set(REQUEST_ID_VARIABLE as never, id as never);
  c.set(ECHO_VARIABLE as never, id as never);
  return id;
}

/**
 * The answer {@link plainAnswer} builds from `data`, `status` and
 * `headers`, with the request's `X-Request-Id` added to `headers` (which
 * it changes) when {@link assignRequestId} gave the
 * request an id, and the answer remembered as carrying it, so
 * {@link echoRequestId} leaves it alone (docs/deploy.md, "Logs";
 * docs/decisions/1350-request-id-in-the-answer-record.md). Without such an
 * id it is {@link plainAnswer} unchanged. Throws nothing of its own.
 * @param data the body text, or null for an answer without one (204, 304)
 * @returns the answer, as {@link plainAnswer} builds it
 */
export function bodyWithRequestId(
  c: Context,
  data: string | null,
  status: StatusCode,
  headers: Record<string, string>,
): Response {
  const id: unknown = c.get(ECHO_VARIABLE as never);
  const echo = typeof id === "string";
  if (echo) headers[REQUEST_ID_HEADER] = id;
  const res = plainAnswer(c, data, status, headers);
  if (echo) c.set(ECHO_VARIABLE as never, res as never);
  return res;
}

/**
 * Sets `X-Request-Id: id` on the answer (`c.res`) unless it is the answer
 * {@link bodyWithRequestId} built carrying it: a 204, an idempotent replay,
 * a stream of events, a health answer or one a later middleware replaced
 * (docs/deploy.md, "Logs"). Call after the handler, where `c.res` is final;
 * it changes that answer's headers in place.
 */
export function echoRequestId(c: Context, id: string): void {
  if (c.get(ECHO_VARIABLE as never) !== c.res) c.res.headers.set(REQUEST_ID_HEADER, id);
}
