/**
 * Access tokens the tracker issues: JWTs signed with HS256 through Hono's
 * own `hono/jwt` helper. resc verifies them, as the `auth` block of
 * `spec.resource` declares (docs/decisions/1367-access-rules.md); the claims
 * are fixed in docs/decisions/0701-tracker-authentication.md.
 */
import { sign } from "hono/jwt";
import { service } from "../generated/tracker/index.js";

/** Who a token is issued to: the signed-in user and the org (tenant) every request is confined to. */
export interface TokenSubject {
  /** `users.id` of the caller (claim `sub`). */
  userId: string;
  /** `orgs.id` of the caller's tenant (claim `org`). */
  orgId: string;
}

/**
 * The `iss` claim of every token: the schema's `auth { jwt { issuer } }`, which
 * resc checks on every request, so the two cannot disagree.
 */
export const TOKEN_ISSUER: string = issuerOfSchema();

/** The environment variable `spec.resource` names for the signing secret (`secret_env`). */
export const SECRET_ENV: string = secretEnvOfSchema();

/** Default lifetime of a token: one hour, in seconds. */
export const DEFAULT_TOKEN_TTL_SECONDS = 3600;

function issuerOfSchema(): string {
  const issuer = service.auth?.jwt?.issuer;
  if (issuer === undefined) throw new Error("spec.resource's auth block names no jwt issuer");
  return issuer;
}

function secretEnvOfSchema(): string {
  const name = service.auth?.jwt?.secretEnv;
  if (name === undefined) throw new Error("spec.resource's auth block names no jwt secret_env");
  return name;
}

/**
 * Signs a token for `subject`, valid from `now` for `ttlSeconds`: `iss`,
 * `sub` (the user), `org` (the tenant), `iat` and `exp`. It names no role:
 * the schema's `default_role` (`member`) applies to every signed-in user.
 * @param now seconds since the epoch (a parameter so tests can mint expired tokens)
 * @returns the compact JWS (`header.payload.signature`)
 */
export function issueToken(
  subject: TokenSubject,
  secret: string,
  ttlSeconds: number = DEFAULT_TOKEN_TTL_SECONDS,
  now: number = Math.floor(Date.now() / 1000),
): Promise<string> {
  return sign(
    { iss: TOKEN_ISSUER, sub: subject.userId, org: subject.orgId, iat: now, exp: now + ttlSeconds },
    secret,
    "HS256",
  );
}
