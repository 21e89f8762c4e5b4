/**
 * Response helpers shared by the handlers: problem documents (RFC 9457,
 * `application/problem+json`) and JSON bodies assembled from row JSON text
 * (written from the texts PostgreSQL formatted, never re-encoded).
 */
import type { Context } from "hono";
import type { ProblemError } from "../problem.js";
import { challengeOf } from "../auth/principal.js";
import { bodyWithRequestId } from "./request-id.js";

/** Seconds of `Retry-After` on a 503 that names none (docs/decisions/0910-connection-faults.md). */
const DEFAULT_RETRY_AFTER = 1;

/**
 * Sends a problem document with its status and the request's id; a 503 carries `Retry-After`.
 * @param extra further headers of the answer (a 401's `WWW-Authenticate`), lowercase names
 */
export function problemResponse(c: Context, p: ProblemError, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { ...extra, "content-type": "application/problem+json" };
  // A 401 always names the scheme that would admit the request (RFC 9110 §11.6.1), with the realm the
  // built-in verification recorded when it admitted the request anonymously (docs/decisions/1367-access-rules.md).
  if (p.status === 401 && headers["www-authenticate"] === undefined)
    headers["www-authenticate"] = challengeOf(c) ?? "Bearer";
  const retry = p.retryAfterSeconds ?? (p.status === 503 ? DEFAULT_RETRY_AFTER : undefined);
  if (retry !== undefined) headers["retry-after"] = String(retry);
  return bodyWithRequestId(c, JSON.stringify(p.toDocument()), p.status as 400, headers);
}

/**
 * Sends JSON text as is (written from PostgreSQL's texts; parsing it again
 * would cost time and numeric precision), with `headers` and the request's
 * id (`bodyWithRequestId`).
 */
export function jsonText(
  c: Context,
  text: string,
  status: 200 | 201 = 200,
  headers: Record<string, string> = {},
): Response {
  return bodyWithRequestId(c, text, status, { "content-type": "application/json; charset=utf-8", ...headers });
}

/** Answers without a body (a 204, or a 304 with its `ETag`), with `headers` and the request's id (`bodyWithRequestId`). */
export function emptyAnswer(c: Context, status: 204 | 304, headers: Record<string, string> = {}): Response {
  return bodyWithRequestId(c, null, status, { ...headers });
}
