/**
 * Access tokens of the tracker: JWTs signed with HS256 through Hono's own
 * `hono/jwt` helpers. The spec leaves issuance and validation open
 * (Authentication 6); the claims are fixed in
 * docs/decisions/0701-tracker-authentication.md.
 */
import { sign, verify } from "hono/jwt";

/**
 * Who is calling: the signed-in user and the org (tenant) every query is
 * confined to. A type alias, not an interface, so that it is also the hooks'
 * `data` record.
 */
export type Principal = {
  /** `users.id` of the caller (claim `sub`). */
  userId: string;
  /** `orgs.id` of the caller's tenant (claim `org`). */
  orgId: string;
};

/** The `iss` claim of every token, checked on verification. */
export const TOKEN_ISSUER = "resc-tracker";

/** Default lifetime of a token: one hour, in seconds. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

/** Why a token was refused; the message is safe to serve (it never echoes the token). */
export class TokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TokenError";
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Signs a token for `principal`, valid from `now` for `ttlSeconds`.
 * @param now seconds since the epoch (a parameter so tests can mint expired tokens)
 * @returns the compact JWS (`header.payload.signature`)
 */
export function issueToken(
  principal: Principal,
  secret: string,
  ttlSeconds: number = DEFAULT_TOKEN_TTL_SECONDS,
  now: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  return sign(
    { iss: TOKEN_ISSUER, sub: principal.userId, org: principal.orgId, iat: now, exp: now + ttlSeconds },
    secret,
    "HS256",
  );
}

/**
 * Verifies a token: HS256 only (the header must say so; `none` and other
 * algorithms are refused), signature, issuer, not expired, not issued in
 * the future, and `sub`/`org` present as UUIDs.
 * @throws TokenError with a short reason when any check fails
 */
export async function verifyToken(token: string, secret: string): Promise<Principal> {
  let payload: Record<string, unknown>;
  try {
    payload = await verify(token, secret, { alg: "HS256", iss: TOKEN_ISSUER });
  } catch (e) {
    const name = e instanceof Error ? e.name : "";
    throw new TokenError(name === "JwtTokenExpired" ? "the token has expired" : "the token is not valid");
  }
  // hono/jwt checks exp only when present; a token that never expires is refused.
  if (typeof payload.exp !== "number") throw new TokenError("the token has no expiry");
  const { sub, org } = payload;
  if (typeof sub !== "string" || !UUID.test(sub) || typeof org !== "string" || !UUID.test(org)) {
    throw new TokenError("the token does not name a user and an org");
  }
  return { userId: sub, orgId: org };
}
