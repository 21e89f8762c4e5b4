/**
 * A request's query parameters, read from its URL text without building a
 * `URL` object: reads and lists take them on every request, and parsing
 * the whole URL cost more than the query string alone (README, "Tuning";
 * docs/decisions/1339-lighter-request-path.md).
 */
import type { Context } from "hono";

/** The parameters after the first `?` of the request URL (none when it has no `?`), as `URL.searchParams` gives them. */
export function queryParams(c: Context): URLSearchParams {
  const url = c.req.url;
  const at = url.indexOf("?");
  if (at < 0) return new URLSearchParams();
  const hash = url.indexOf("#", at);
  return new URLSearchParams(hash < 0 ? url.slice(at + 1) : url.slice(at + 1, hash));
}
