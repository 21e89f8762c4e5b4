/**
 * Development tokens (docs/decisions/1367-access-rules.md,
 * "Authentication"): what `resc token` prints. Signed with the schema's
 * first HS* algorithm (HS256 when it allows it) and the secret `resc dev`
 * verifies with; `iss` and `aud` the schema's; each role at the role claim's
 * path and each claim at its own; `"resc_dev": true`, so `resc serve`
 * refuses it whatever its signature.
 */
import { SignJWT } from "jose";
import type { AuthDescriptor, JwtAlgorithm } from "../../runtime/descriptor.js";
import { DEVELOPMENT_CLAIM } from "../../runtime/auth/verify.js";
import { isHmac } from "../../runtime/auth/settings.js";
import { principalFromPayload } from "../../runtime/auth/claims.js";
import { TokenRefused } from "../../runtime/auth/errors.js";

/** What a development token says. */
export interface DevelopmentToken {
  /** `sub`. */
  subject: string;
  /** Roles of the schema, placed at its role claim (one as a string, several as an array); none: the default role. */
  roles: string[];
  /** `name=value` pairs: each a claim of the schema, the value JSON when it parses as JSON, else the text. */
  claims: string[];
  /** Seconds until `exp`. */
  ttlSeconds: number;
}

/**
 * The algorithm development tokens of `auth` are signed with: HS256 when
 * its settings allow it, else their first HS* one.
 * @throws Error when the schema has no `jwt` settings, or they are not HS*
 */
export function developmentAlgorithm(auth: AuthDescriptor | undefined, file: string): JwtAlgorithm {
  const jwt = auth?.jwt;
  if (!auth) throw new Error(`${file} declares no auth block: there is nothing to mint a token for`);
  if (!jwt) throw new Error(`${file}'s auth block has no jwt settings: resc verifies no token`);
  if (!jwt.algorithms.every(isHmac) || jwt.secretEnv === undefined)
    throw new Error(
      `${file} verifies ${jwt.algorithms.join(", ")} tokens with public keys; resc token signs with a shared secret (HS256) only: ask the identity provider for a token`,
    );
  return jwt.algorithms.includes("HS256") ? "HS256" : jwt.algorithms[0]!;
}

/** Sets `value` at `path` in `payload`, making the objects on the way. */
function place(payload: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let at = payload;
  for (const step of path.slice(0, -1)) {
    const next = at[step];
    at = (typeof next === "object" && next !== null && !Array.isArray(next) ? next : (at[step] = {})) as Record<
      string,
      unknown
    >;
  }
  at[path[path.length - 1]!] = value;
}

/** A `--claim` value: JSON when it parses (numbers, booleans, arrays), else the text as given. */
function claimValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The payload of a development token of `auth`, read back with the claim reading the verification uses
 * (runtime/auth/claims.ts), so `resc token` never prints a token the service would refuse for its claims
 * (docs/decisions/1367-access-rules.md).
 * @param nowSeconds the time it is issued, seconds since the epoch
 * @throws Error naming a role or claim the schema does not declare, a `--claim` without `=`, a required
 *   claim not given, a claim whose value is not of its declared type, or no role and no default role
 */
export function developmentPayload(
  auth: AuthDescriptor,
  token: DevelopmentToken,
  nowSeconds: number,
): Record<string, unknown> {
  const payload: Record<string, unknown> = {};
  const unknownRoles = token.roles.filter((r) => !auth.roles.includes(r));
  if (unknownRoles.length > 0)
    throw new Error(`--role ${unknownRoles.join(", ")}: the schema's roles are ${auth.roles.join(", ")}`);
  if (token.roles.length > 0) place(payload, auth.roleClaim, token.roles.length === 1 ? token.roles[0] : token.roles);
  for (const pair of token.claims) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new Error(`--claim ${pair}: write it as name=value`);
    const name = pair.slice(0, eq);
    const declared = auth.claims.find((c) => c.name === name);
    if (!declared)
      throw new Error(
        `--claim ${name}: the schema declares ${auth.claims.length > 0 ? `the claims ${auth.claims.map((c) => c.name).join(", ")}` : "no claim"}`,
      );
    place(payload, declared.path, claimValue(pair.slice(eq + 1)));
  }
  const jwt = auth.jwt!;
  const minted = {
    ...payload,
    sub: token.subject,
    ...(jwt.issuer !== undefined ? { iss: jwt.issuer } : {}),
    ...(jwt.audience !== undefined ? { aud: jwt.audience } : {}),
    iat: nowSeconds,
    exp: nowSeconds + token.ttlSeconds,
    [DEVELOPMENT_CLAIM]: true,
  };
  try {
    principalFromPayload(auth, minted);
  } catch (e) {
    if (!(e instanceof TokenRefused)) throw e;
    const hint =
      e.reason === "claims" ? " (give it with --claim name=value)" : e.reason === "role" ? " (give --role)" : "";
    throw new Error(`the service would refuse this token: ${e.message}${hint}`);
  }
  return minted;
}

/**
 * A development token of `auth`, signed with `secret` (the UTF-8 bytes of
 * the text, as `resc dev` verifies it).
 * @throws Error as {@link developmentAlgorithm} and {@link developmentPayload}
 */
export function mintDevelopmentToken(
  auth: AuthDescriptor | undefined,
  file: string,
  secret: string,
  token: DevelopmentToken,
): Promise<string> {
  const alg = developmentAlgorithm(auth, file);
  const payload = developmentPayload(auth!, token, Math.floor(Date.now() / 1000));
  return new SignJWT(payload).setProtectedHeader({ alg, typ: "JWT" }).sign(new TextEncoder().encode(secret));
}
