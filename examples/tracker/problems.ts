/**
 * Problem documents (RFC 9457) answered by the tracker's hand-written code,
 * in the shape the generated handlers use (docs/http.md), so a client reads
 * every refusal the same way.
 */
import type { Context } from "hono";
import type { ProblemDocument, ProblemItem } from "resc/runtime";

/** The realm named in `WWW-Authenticate` challenges. */
export const REALM = "tracker";

/** Sends `doc` as `application/problem+json` with its status and any extra headers. */
export function sendProblem(c: Context, doc: ProblemDocument, headers: Record<string, string> = {}): Response {
  return c.body(JSON.stringify(doc), doc.status as 400, { ...headers, "content-type": "application/problem+json" });
}

/**
 * A 401 with a Bearer challenge (RFC 6750 §3): without `invalidToken` the
 * request simply carried no credential; with it, the credential was refused
 * and the challenge says `error="invalid_token"`.
 * @param detail a sentence safe to serve: never the token, never whether an email exists
 */
export function unauthorized(c: Context, detail: string, location: string, invalidToken = false): Response {
  const challenge = invalidToken ? `Bearer realm="${REALM}", error="invalid_token"` : `Bearer realm="${REALM}"`;
  return sendProblem(
    c,
    { type: "/problems/unauthorized", title: "Unauthorized", status: 401, detail, errors: [{ location, detail }] },
    { "www-authenticate": challenge },
  );
}

/** A 400 listing every problem of a hand-written endpoint's request body. */
export function invalidBody(c: Context, errors: ProblemItem[]): Response {
  const first = errors[0]?.detail ?? "the request body is not valid";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  return sendProblem(c, {
    type: "/problems/invalid-body",
    title: "Bad Request",
    status: 400,
    detail: first + more,
    errors,
  });
}
