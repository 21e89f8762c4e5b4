/**
 * Bearer-token middleware on the router (spec: Authentication 1-2): it runs
 * in front of every generated route whether or not the resource declares
 * Security; the generated handlers know nothing of authentication.
 */
import type { Context, MiddlewareHandler } from "hono";
import { unauthorized } from "../problems.js";
import { TokenError, verifyToken, type Principal } from "./token.js";

/** The verified caller of a request (the `principal` variable), or undefined before (or without) {@link bearerAuth}. */
export function principalOf(c: Context): Principal | undefined {
  const p: unknown = c.get("principal");
  if (typeof p !== "object" || p === null) return undefined;
  const { userId, orgId } = p as Record<string, unknown>;
  return typeof userId === "string" && typeof orgId === "string" ? { userId, orgId } : undefined;
}

const BEARER = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i;

/**
 * Requires `Authorization: Bearer <token>` on every request except those
 * `isPublic` lets through, and stores the verified {@link Principal} as the
 * `principal` variable. A token is read from that header only, never from
 * the query string (spec: Command-line client rule 3).
 *
 * Refusals are 401 problem documents with a `WWW-Authenticate: Bearer`
 * challenge: no credential → a plain challenge; a malformed, forged,
 * expired or foreign token → `error="invalid_token"` (RFC 6750 §3.1).
 */
export function bearerAuth(secret: string, isPublic: (c: Context) => boolean): MiddlewareHandler {
  return async (c, next) => {
    if (isPublic(c)) return next();
    const header = c.req.header("authorization");
    if (header === undefined || header.trim() === "") {
      return unauthorized(
        c,
        "This endpoint needs a bearer token: sign in with POST /auth/login.",
        "header.authorization",
      );
    }
    const m = BEARER.exec(header);
    if (!m) {
      return unauthorized(c, 'The Authorization header must read "Bearer <token>".', "header.authorization", true);
    }
    try {
      c.set("principal", await verifyToken(m[1], secret));
    } catch (e) {
      const reason = e instanceof TokenError ? e.message : "the token is not valid";
      return unauthorized(c, `The bearer token was refused: ${reason}.`, "header.authorization", true);
    }
    return next();
  };
}
