/**
 * Verifying a bearer token into a {@link Principal}
 * (docs/decisions/1367-access-rules.md, "Authentication"), with jose's
 * `jwtVerify`: the algorithms are the settings' (never the token header's),
 * `exp` is required, `nbf`, `iss` and `aud` are checked with the clock
 * tolerance, then the payload becomes the principal (runtime/auth/claims.ts).
 * Settings that cannot work are refused when the authenticator is made.
 */
import { errors, jwtVerify } from "jose";
import type { AuthDescriptor, JwtDescriptor } from "../descriptor.js";
import { checkDeclarations, principalFromPayload } from "./claims.js";
import { AuthConfigError, KeysUnavailable, TokenRefused } from "./errors.js";
import { verificationKeys, type KeyResolver, type KeySetCacheOptions } from "./keys.js";
import type { Principal } from "./principal.js";
import { checkSettings } from "./settings.js";
import { VERIFIED_MAX_AGE_SECONDS, verifiedTokens } from "./verified.js";

/**
 * The longest bearer token looked at, in bytes (characters: a token is
 * ASCII); a longer one is refused before any decoding. 16 KiB is Node's
 * whole header section by default, and several times the largest access
 * tokens identity providers issue.
 */
export const MAX_TOKEN_BYTES = 16 * 1024;

/** The claim a development token (`resc token`) carries; such a token is refused outside `resc dev`. */
export const DEVELOPMENT_CLAIM = "resc_dev";

/** Options of {@link createAuthenticator}. */
export interface AuthenticatorOptions {
  /** The schema's `auth` block, its `jwt` settings already overridden as `resc serve`'s flags say. */
  auth: AuthDescriptor;
  /** Where `secretEnv` and `publicKeyEnv` are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Accept development tokens (`"resc_dev": true`, made by `resc token`): `resc dev` only. Default false. */
  development?: boolean;
  /** How a `jwksUrl` key set is cached; defaults: ten minutes, a 30 s cooldown for unknown `kid`s, a 5 s timeout. */
  keySetCache?: KeySetCacheOptions;
  /**
   * How long, in seconds, a token already verified is answered without verifying its signature again
   * (runtime/auth/verified.ts, docs/decisions/1374-verified-token-cache.md); default 60, never longer than a
   * key set is cached; 0 verifies every token.
   */
  verifiedMaxAgeSeconds?: number;
}

/** Verifies bearer tokens of one service. */
export interface Authenticator {
  /**
   * The principal of `token` (the compact JWS, without `Bearer `).
   * @throws TokenRefused when it does not make a principal, the message saying why (safe to log, never to serve)
   * @throws KeysUnavailable when the key set could not be fetched (answered 503, not 401)
   */
  verify(token: string): Promise<Principal>;
}

/** A jose error (or an error of ours from key resolution) as what it means for the request. */
function refusalOf(e: unknown): TokenRefused | KeysUnavailable {
  if (e instanceof TokenRefused || e instanceof KeysUnavailable) return e;
  const cause = { cause: e };
  if (e instanceof errors.JWTExpired) return new TokenRefused("expired", "the token has expired (exp)", cause);
  if (e instanceof errors.JWTClaimValidationFailed) {
    const claim = e.claim;
    if (claim === "nbf") return new TokenRefused("not-yet-valid", "the token is not valid yet (nbf)", cause);
    if (claim === "iss") return new TokenRefused("issuer", "the token's iss is not the configured issuer", cause);
    if (claim === "aud") return new TokenRefused("audience", "the token's aud is not the configured audience", cause);
    return new TokenRefused(
      "claims",
      `the token's ${claim} claim is ${e.reason === "missing" ? "missing" : "invalid"}`,
      cause,
    );
  }
  if (e instanceof errors.JOSEAlgNotAllowed || e instanceof errors.JOSENotSupported)
    return new TokenRefused("algorithm", `the token's algorithm is not allowed: ${e.message}`, cause);
  if (e instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRefused("signature", "the token's signature does not verify", cause);
  if (e instanceof errors.JWSInvalid || e instanceof errors.JWTInvalid)
    return new TokenRefused("malformed", `the token is not a well-formed JWT: ${e.message}`, cause);
  // jose's TypeError for a key that does not suit the token's algorithm (a short RSA key, another curve).
  if (e instanceof TypeError) return new TokenRefused("key", `the key does not verify this token: ${e.message}`, cause);
  return new TokenRefused("malformed", `the token could not be verified: ${(e as Error).message ?? String(e)}`, cause);
}

/**
 * An authenticator for `options.auth`. Without `auth.jwt` (an `auth` block
 * that verifies nothing: only a `--middleware` sets principals) every token
 * is refused.
 * @throws AuthConfigError when the settings cannot verify any token: no or several key sources, an
 *   environment variable unset, a secret shorter than its algorithm needs (32 bytes for HS256, 48 for HS384,
 *   64 for HS512), a PEM that does not parse or suit the algorithms, a key set URL that is not https:, a
 *   claim of a kind a token cannot carry; the message names the setting, its `resc serve` flag and the
 *   variable, never a secret
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { auth } = options;
  checkDeclarations(auth);
  const jwt: JwtDescriptor | undefined = auth.jwt;
  if (!jwt) {
    return {
      verify: () =>
        Promise.reject(new TokenRefused("key", "the schema's auth block has no jwt settings: no token is verified")),
    };
  }
  const source = checkSettings(jwt);
  const key: KeyResolver = verificationKeys(jwt, source, options.env ?? process.env, options.keySetCache);
  const verifyOptions = {
    algorithms: [...jwt.algorithms],
    ...(jwt.issuer !== undefined ? { issuer: jwt.issuer } : {}),
    ...(jwt.audience !== undefined ? { audience: jwt.audience } : {}),
    clockTolerance: jwt.clockToleranceSeconds,
    requiredClaims: ["exp"],
  };
  const development = options.development === true;
  let maxAge = options.verifiedMaxAgeSeconds ?? VERIFIED_MAX_AGE_SECONDS;
  if (source.kind === "key-set") maxAge = Math.min(maxAge, options.keySetCache?.maxAgeSeconds ?? maxAge);
  const verified = verifiedTokens({ clockToleranceSeconds: jwt.clockToleranceSeconds, maxAgeSeconds: maxAge });
  return {
    async verify(token: string): Promise<Principal> {
      if (token.length > MAX_TOKEN_BYTES)
        throw new TokenRefused("malformed", `the token is longer than ${MAX_TOKEN_BYTES} bytes`);
      const known = verified.get(token);
      if (known !== undefined) return known;
      let payload: Record<string, unknown>;
      try {
        payload = (await jwtVerify(token, key, verifyOptions)).payload;
      } catch (e) {
        throw refusalOf(e);
      }
      if (!development && Object.hasOwn(payload, DEVELOPMENT_CLAIM))
        throw new TokenRefused(
          "development",
          `a development token (${DEVELOPMENT_CLAIM}, from resc token) outside resc dev`,
        );
      const principal = principalFromPayload(auth, payload);
      verified.set(token, principal);
      return principal;
    },
  };
}

export { AuthConfigError, KeysUnavailable, TokenRefused };
