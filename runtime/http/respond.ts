/**
 * Response helpers shared by the handlers: problem documents (RFC 9457,
 * `application/problem+json`) and JSON bodies assembled from row JSON text
 * (written from the texts PostgreSQL formatted, never re-encoded).
 */
import type { Context } from "hono";
import type { ProblemError } from "../problem.js";

/** Sends a problem document with its status. */
export function problemResponse(c: Context, p: ProblemError): Response {
  return c.body(JSON.stringify(p.toDocument()), p.status as 400, {
    "content-type": "application/problem+json",
  });
}

/** Sends JSON text as is (written from PostgreSQL's texts; parsing it again would cost time and numeric precision). */
export function jsonText(c: Context, text: string, status: 200 | 201 = 200, headers: Record<string, string> = {}): Response {
  return c.body(text, status, { "content-type": "application/json; charset=utf-8", ...headers });
}
