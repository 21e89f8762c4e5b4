/**
 * The three ways verifying a bearer token can fail
 * (docs/decisions/1367-access-rules.md, "Authentication"): the settings
 * cannot work at all (found when the authenticator is made, shown at start),
 * the token is refused (the client's: a 401 that never says why), or the
 * keys that would verify it cannot be fetched right now (the service's: a
 * 503).
 */
import { brandClass } from "../brand.js";

/**
 * Why a token was refused, for the log line and for tests; never served.
 *
 * - `malformed`: not a compact JWS, or too long, or its payload is not a JSON object
 * - `algorithm`: its header names an algorithm the settings do not allow (`none`, HS256 against RS256 keys)
 * - `key`: no key of the key set has its `kid`
 * - `signature`: the signature does not verify
 * - `expired`, `not-yet-valid`: `exp` / `nbf` outside the clock tolerance
 * - `issuer`, `audience`: `iss` / `aud` not the configured ones
 * - `claims`: a registered claim missing or mistyped (`exp` is required), or a declared claim of the schema
 * - `subject`: no `sub`, or not a non-empty string
 * - `role`: no declared role in the token and no default role, or a role claim of the wrong type
 * - `development`: a `resc token` development token outside `resc dev`
 */
export type RefusalReason =
  | "malformed"
  | "algorithm"
  | "key"
  | "signature"
  | "expired"
  | "not-yet-valid"
  | "issuer"
  | "audience"
  | "claims"
  | "subject"
  | "role"
  | "development";

/**
 * A bearer token that does not make a principal. Its message says which
 * check failed, naming claims but never their values nor the token, so it is
 * safe to log; it is never served (the 401 says nothing of why).
 */
export class TokenRefused extends Error {
  /** Which check failed. */
  readonly reason: RefusalReason;

  /**
   * @param reason which check failed
   * @param message what failed, safe to log: claim names, never values or the token
   */
  constructor(reason: RefusalReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "TokenRefused";
    this.reason = reason;
  }
}
brandClass(TokenRefused, "resc.TokenRefused");

/**
 * Settings that cannot verify any token: an environment variable unset, a
 * PEM that does not parse, a secret too short for its algorithm, no key
 * source. The message names the setting (and its `resc serve` flag) and the
 * variable, never a secret's value. Thrown by `createAuthenticator`; `resc
 * serve` shows it and does not start.
 */
export class AuthConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthConfigError";
  }
}
brandClass(AuthConfigError, "resc.AuthConfigError");

/**
 * The key set (`jwks_url`) could not be fetched or read: the identity
 * provider is down, slow (5 s) or answered something else than a JWK set.
 * Not the client's fault: answered 503 with `Retry-After`, and the token is
 * judged again on the next request. The message names the URL, never a token.
 */
export class KeysUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KeysUnavailable";
  }
}
brandClass(KeysUnavailable, "resc.KeysUnavailable");
