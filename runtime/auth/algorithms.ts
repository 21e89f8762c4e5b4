/**
 * The JWS algorithms a service may fix for its bearer tokens, stated once
 * (docs/decisions/1367-access-rules.md): the language's `algorithms = […]`
 * (grammar/to-ir/auth.ts), the descriptor's type, the verification's settings
 * check and the highlighting all read it. Keyed by the whole union, so a new
 * algorithm cannot be added without its family. `none` is not one: a token
 * must be signed. It imports nothing.
 */

/** Each algorithm and its key family: a shared secret (HMAC) or a public key. */
export const JWT_ALGORITHM_FAMILIES = {
  HS256: "hmac",
  HS384: "hmac",
  HS512: "hmac",
  RS256: "public-key",
  RS384: "public-key",
  RS512: "public-key",
  PS256: "public-key",
  PS384: "public-key",
  PS512: "public-key",
  ES256: "public-key",
  ES384: "public-key",
  ES512: "public-key",
  EdDSA: "public-key",
} as const satisfies Record<string, "hmac" | "public-key">;

/** A JWS algorithm a service may accept; fixed by the schema or `resc serve`, never by the token. */
export type JwtAlgorithm = keyof typeof JWT_ALGORITHM_FAMILIES;

/** Every {@link JwtAlgorithm}, in the order the language reference lists them. */
export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = Object.keys(JWT_ALGORITHM_FAMILIES) as JwtAlgorithm[];
