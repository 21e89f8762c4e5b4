/**
 * What of a request target may be logged: the path and query with the
 * values of credential-looking parameters replaced, so a token a client put
 * in a URL by mistake never reaches a log (shared by `withOperations` and
 * the tracker; docs/deploy.md).
 */

/** Query parameters whose values a client may fill with a credential by mistake. */
export const SECRET_PARAMS: ReadonlySet<string> = new Set([
  "access_token",
  "token",
  "password",
  "api_key",
  "apikey",
  "secret",
]);

/** `href`'s path and query, each secret parameter's value replaced by `REDACTED`. */
export function loggedTarget(href: string): string {
  const url = new URL(href);
  if (![...url.searchParams.keys()].some((k) => SECRET_PARAMS.has(k.toLowerCase()))) return url.pathname + url.search;
  const kept = [...url.searchParams].map(([k, v]) => [k, SECRET_PARAMS.has(k.toLowerCase()) ? "REDACTED" : v]);
  return `${url.pathname}?${new URLSearchParams(kept).toString()}`;
}
