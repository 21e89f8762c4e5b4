/**
 * The built-in bearer authentication of a served resource
 * (docs/decisions/1367-access-rules.md, "Authentication"; RFC 6750): the
 * `Authorization: Bearer <token>` header verified into the request's
 * principal. A request without the header is the anonymous role's, or a 401
 * with `WWW-Authenticate: Bearer realm="…"`; a header that is malformed, too
 * long, or carries a refused token is a 401 with `error="invalid_token"`
 * (RFC 6750 §3.1) whose problem document never says which check failed (the
 * log line does). A token in the query string (`access_token`, RFC 6750
 * §2.3) is never read. A principal a `--middleware` already set is left be.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { AuthDescriptor } from "../descriptor.js";
import { preparesNoHeaders } from "../http/plain-answer.js";
import { requestHeaderLines } from "../http/request-header.js";
import { problemResponse } from "../http/respond.js";
import { problem } from "../problem.js";
import { anonymousPrincipal } from "./claims.js";
import { KeysUnavailable, TokenRefused } from "./errors.js";
import { principalOf, setChallenge, setPrincipal } from "./principal.js";
import { MAX_TOKEN_BYTES, type Authenticator } from "./verify.js";

/** Options of {@link bearerAuthentication}. */
export interface BearerOptions {
  /** The `realm` of `WWW-Authenticate` (quotes, backslashes and control characters dropped); default `resc`. */
  realm?: string;
  /**
   * Receives each refused token ({@link TokenRefused}, its message saying why) and each time the keys
   * could not be fetched ({@link KeysUnavailable}), with the request; default: nothing is logged.
   */
  log?: (refusal: TokenRefused | KeysUnavailable, c: Context) => void;
}

/** `Bearer` and one b64token (RFC 6750 §2.1), spaces around it tolerated. */
const BEARER = /^[ \t]*bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/**
 * The start of one credential in a comma-separated list of them (RFC 9110
 * §11.4): an auth-scheme token and whitespace before its token68 or first
 * parameter. A parameter after a comma (`Digest a="1", b="2"`) has `=`
 * right after its name, so it is not one; `Bearer a,b` names no second one.
 */
const CREDENTIAL_START = /^[ \t]*[!#$%&'*+\-.^_`|~0-9A-Za-z]+[ \t]+[^ \t=]/;

/**
 * Whether an `Authorization` value holds more than one credential: two
 * headers joined by `Headers` with `, `, or one header listing two.
 */
function severalCredentials(header: string): boolean {
  if (!header.includes(",")) return false;
  return header.split(",").filter((part) => CREDENTIAL_START.test(part)).length > 1;
}

/** The location every problem of this middleware names. */
const LOCATION = "header.authorization";

/** A realm as a quoted-string can carry it: printable ASCII, no quote or backslash, at most 100 characters. */
function realmOf(realm: string | undefined): string {
  const clean = (realm ?? "").replace(/[^\x20-\x7e]|["\\]/g, "").slice(0, 100);
  return clean === "" ? "resc" : clean;
}

/**
 * The Hono middleware verifying the bearer token of each request with
 * `authenticator` and setting its principal (`setPrincipal`), for the
 * routes it is used on:
 *
 * - a principal already set (a hand-written middleware's) → next;
 * - no `Authorization` header → `auth.anonymous`'s principal (subject `""`,
 *   every claim null, `anonymous: true`), or 401 `/problems/unauthorized`
 *   with `WWW-Authenticate: Bearer realm="…"`;
 * - a header that is not `Bearer <token>`, a token over {@link MAX_TOKEN_BYTES}
 *   (refused unread), a refused token → 401 `/problems/unauthorized` with
 *   `WWW-Authenticate: Bearer realm="…", error="invalid_token"`, the same
 *   detail whatever failed;
 * - two `Authorization` headers, or one listing two credentials (`Bearer a, Bearer b`, as `Headers` joins
 *   two headers) → 400 `/problems/invalid-header`: never one of them chosen;
 * - keys that cannot be fetched → 503 `/problems/keys-unavailable` with `Retry-After`.
 *
 * Every problem names `header.authorization`. Prepares no header before it
 * answers (docs/decisions/1352-answers-without-headers-objects.md).
 */
export function bearerAuthentication(
  authenticator: Authenticator,
  auth: AuthDescriptor,
  options: BearerOptions = {},
): MiddlewareHandler {
  const realm = realmOf(options.realm);
  const challenge = `Bearer realm="${realm}"`;
  const invalid = `${challenge}, error="invalid_token"`;
  const anonymous = auth.anonymous !== undefined ? anonymousPrincipal(auth) : undefined;
  const log = options.log;
  const refuse = (c: Context, why: TokenRefused): Response => {
    log?.(why, c);
    return problemResponse(
      c,
      problem("unauthorized", "The bearer token was refused.", [{ location: LOCATION, detail: "refused" }]),
      { "www-authenticate": invalid },
    );
  };
  const several = (c: Context): Response =>
    problemResponse(
      c,
      problem("invalid-header", "The request carries more than one Authorization credential; send exactly one.", [
        { location: LOCATION, detail: "several credentials: send one Authorization: Bearer <token>" },
      ]),
    );
  return preparesNoHeaders(async (c, next) => {
    if (principalOf(c)) return next();
    const lines = requestHeaderLines(c, "authorization");
    const header = lines[0];
    if (header === undefined) {
      if (anonymous) {
        setPrincipal(c, anonymous);
        // An operation the anonymous role is not granted is a 401 with this challenge (runtime/http/access.ts).
        setChallenge(c, challenge);
        return next();
      }
      return problemResponse(
        c,
        problem("unauthorized", "This request needs a bearer token.", [
          { location: LOCATION, detail: "missing: send Authorization: Bearer <token>" },
        ]),
        { "www-authenticate": challenge },
      );
    }
    // Two credentials are never one chosen silently: which one the caller meant is theirs to say (a 400,
    // not a 401 that would send a client to refresh a token that may be good).
    if (lines.length > 1) return several(c);
    // Judged by its length before anything else: a huge header costs no regular expression or decoding.
    if (header.length > MAX_TOKEN_BYTES + 16)
      return refuse(
        c,
        new TokenRefused("malformed", `the Authorization header is longer than ${MAX_TOKEN_BYTES} bytes`),
      );
    const token = BEARER.exec(header)?.[1];
    if (token === undefined && severalCredentials(header)) return several(c);
    if (token === undefined)
      return refuse(c, new TokenRefused("malformed", "the Authorization header is not Bearer and one token"));
    try {
      setPrincipal(c, await authenticator.verify(token));
    } catch (e) {
      if (e instanceof TokenRefused) return refuse(c, e);
      if (e instanceof KeysUnavailable) {
        log?.(e, c);
        const p = problem("keys-unavailable", "The keys that verify bearer tokens cannot be fetched right now.", [
          { location: LOCATION, detail: "not verified yet: try again" },
        ]);
        p.retryAfterSeconds = 5;
        return problemResponse(c, p);
      }
      throw e;
    }
    return next();
  });
}
