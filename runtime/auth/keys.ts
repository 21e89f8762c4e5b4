/**
 * The keys that verify bearer tokens, from the one key source the settings
 * name (docs/decisions/1367-access-rules.md, "Authentication"): an HMAC
 * secret from an environment variable or a PEM public key from an
 * environment variable (`importSPKI`), each imported once, or a remote JWK
 * set (`createRemoteJWKSet`: cached, fetched again when a token names a
 * `kid` it lacks, at most once per cooldown, so rotating keys at the
 * identity provider needs no restart and unknown `kid`s cannot make resc
 * hammer it). Everything that can be checked without a token is checked
 * when the keys are made, so a wrong setting stops the start instead of
 * refusing every request.
 */
import { createPublicKey, type KeyObject } from "node:crypto";
import { createRemoteJWKSet, errors, importSPKI, type CryptoKey, type JWTVerifyGetKey } from "jose";
import type { JwtAlgorithm, JwtDescriptor } from "../descriptor.js";
import { AuthConfigError, KeysUnavailable, TokenRefused } from "./errors.js";
import { HMAC_MIN_SECRET_BYTES, SETTING_NAMES, type KeySource } from "./settings.js";

/** How a remote key set is cached; every field in seconds. */
export interface KeySetCacheOptions {
  /** How long a fetched key set is used before it is fetched again; default 600 (ten minutes). */
  maxAgeSeconds?: number;
  /**
   * After a fetch, how long a token naming an unknown `kid` is refused
   * without fetching again; default 30.
   */
  cooldownSeconds?: number;
  /** How long a fetch may take before the keys count as unavailable (503); default 5. */
  timeoutSeconds?: number;
}

/** Defaults of {@link KeySetCacheOptions}, in seconds. */
const KEY_SET_DEFAULTS = { maxAgeSeconds: 600, cooldownSeconds: 30, timeoutSeconds: 5 } as const;

/** What resolves the verification key of one token (jose's `JWTVerifyGetKey`). */
export type KeyResolver = JWTVerifyGetKey;

/** The environment variable `name`'s value, or an {@link AuthConfigError} naming the variable and the setting. */
function required(env: Readonly<Record<string, string | undefined>>, name: string, setting: string): string {
  const value = env[name];
  if (value === undefined || value === "")
    throw new AuthConfigError(`the environment variable ${name} (jwt ${setting}) is not set`);
  return value;
}

/** The WebCrypto hash of each HMAC algorithm (RFC 7518 §3.2). */
const HMAC_HASH: Readonly<Partial<Record<JwtAlgorithm, string>>> = {
  HS256: "SHA-256",
  HS384: "SHA-384",
  HS512: "SHA-512",
};

/**
 * The HMAC secret: the variable's text as UTF-8 bytes, at least as long as
 * the longest hash of the algorithms (32 bytes for HS256, 48 for HS384, 64
 * for HS512), imported once per algorithm as a WebCrypto key. Given the bytes
 * themselves, jose imports them again for every token it verifies, which
 * cost more than the HMAC (bench/RESULTS.md, "Access rules and bearer tokens").
 */
function secretKey(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  algorithms: JwtAlgorithm[],
): KeyResolver {
  const bytes = new TextEncoder().encode(required(env, name, SETTING_NAMES.secretEnv));
  const needed = Math.max(...algorithms.map((a) => HMAC_MIN_SECRET_BYTES[a] ?? 0));
  if (bytes.length < needed)
    throw new AuthConfigError(
      `the secret in ${name} (jwt ${SETTING_NAMES.secretEnv}) is ${bytes.length} bytes; ${algorithms.join(", ")} needs at least ${needed}`,
    );
  const imported = new Map<string, Promise<CryptoKey>>();
  for (const alg of algorithms) {
    const key = crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: HMAC_HASH[alg]! }, false, ["verify"]);
    key.catch(() => {}); // judged when a token needs it, as a public key's import is
    imported.set(alg, key);
  }
  return async (header) => {
    const key = imported.get(header.alg);
    if (!key) throw new TokenRefused("algorithm", `the token's algorithm is not one of ${algorithms.join(", ")}`);
    return key.catch((e: Error) => {
      throw new TokenRefused("key", `the secret in ${name} could not be imported for ${header.alg}: ${e.message}`);
    });
  };
}

/** Whether a parsed public key can verify `alg` (RFC 7518 §3, RFC 8037). */
function fits(key: KeyObject, alg: JwtAlgorithm): string | undefined {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (alg.startsWith("RS") || alg.startsWith("PS")) {
    if (type !== "rsa" && !(type === "rsa-pss" && alg.startsWith("PS"))) return `${alg} needs an RSA key, not ${type}`;
    if ((details.modulusLength ?? 0) < 2048) return `${alg} needs an RSA key of 2048 bits or more`;
    return undefined;
  }
  if (alg.startsWith("ES")) {
    const curve = { ES256: "prime256v1", ES384: "secp384r1", ES512: "secp521r1" }[alg as "ES256" | "ES384" | "ES512"];
    return type === "ec" && details.namedCurve === curve ? undefined : `${alg} needs an EC key on ${curve}`;
  }
  return type === "ed25519" || type === "ed448" ? undefined : `${alg} needs an Ed25519 or Ed448 key, not ${type}`;
}

/**
 * The PEM public key: parsed at once (a key that does not parse, or does
 * not suit an algorithm, is an {@link AuthConfigError}), then imported with
 * `importSPKI` for each algorithm. A value written on one line with `\n`
 * escapes (as `.env` files hold it) is read with those as line breaks.
 */
function publicKey(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  algorithms: JwtAlgorithm[],
): KeyResolver {
  let pem = required(env, name, SETTING_NAMES.publicKeyEnv).trim();
  if (!pem.includes("\n")) pem = pem.replace(/\\n/g, "\n");
  const where = `${name} (jwt ${SETTING_NAMES.publicKeyEnv})`;
  if (!pem.startsWith("-----BEGIN PUBLIC KEY-----"))
    throw new AuthConfigError(`${where} must hold a PEM public key (-----BEGIN PUBLIC KEY-----, SPKI)`);
  let parsed: KeyObject;
  try {
    parsed = createPublicKey({ key: pem, format: "pem" });
  } catch (e) {
    throw new AuthConfigError(`${where} does not hold a readable PEM public key: ${(e as Error).message}`);
  }
  for (const alg of algorithms) {
    const misfit = fits(parsed, alg);
    if (misfit) throw new AuthConfigError(`the key in ${where} cannot verify: ${misfit}`);
  }
  const imported = new Map<string, Promise<CryptoKey>>();
  for (const alg of algorithms) {
    const key = importSPKI(pem, alg);
    key.catch(() => {}); // judged when a token needs it: a refusal then, never an unhandled rejection now
    imported.set(alg, key);
  }
  return async (header) => {
    const key = imported.get(header.alg);
    if (!key) throw new TokenRefused("algorithm", `the token's algorithm is not one of ${algorithms.join(", ")}`);
    return key.catch((e: Error) => {
      throw new TokenRefused("key", `the key in ${name} could not be imported for ${header.alg}: ${e.message}`);
    });
  };
}

/**
 * The remote key set, fetched now (so the first request need not wait; a
 * failure then is only logged by the first token that needs the keys) and
 * cached as {@link KeySetCacheOptions} says. A `kid` the set lacks is a
 * {@link TokenRefused}; a set that cannot be fetched is
 * {@link KeysUnavailable}.
 */
function keySet(url: URL, cache: KeySetCacheOptions): KeyResolver {
  const o = { ...KEY_SET_DEFAULTS, ...cache };
  const jwks = createRemoteJWKSet(url, {
    cacheMaxAge: o.maxAgeSeconds * 1000,
    cooldownDuration: o.cooldownSeconds * 1000,
    timeoutDuration: Math.round(o.timeoutSeconds * 1000),
  });
  void jwks.reload().catch(() => {});
  const shown = `${url.origin}${url.pathname}`;
  return async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (e) {
      if (e instanceof errors.JWKSNoMatchingKey)
        throw new TokenRefused("key", `no key of ${shown} matches the token's kid and algorithm`, { cause: e });
      if (e instanceof errors.JWKSMultipleMatchingKeys)
        throw new TokenRefused("key", `several keys of ${shown} match the token, which names no kid`, { cause: e });
      throw new KeysUnavailable(`the key set ${shown} could not be fetched: ${(e as Error).message}`, { cause: e });
    }
  };
}

/**
 * The key resolver for `jwt`'s key source, checked as far as it can be
 * without a token.
 * @param source from `checkSettings(jwt)`
 * @param env where `secretEnv` and `publicKeyEnv` are read
 * @throws AuthConfigError naming the environment variable or setting
 */
export function verificationKeys(
  jwt: JwtDescriptor,
  source: KeySource,
  env: Readonly<Record<string, string | undefined>>,
  cache: KeySetCacheOptions = {},
): KeyResolver {
  switch (source.kind) {
    case "secret":
      return secretKey(env, source.env, jwt.algorithms);
    case "public-key":
      return publicKey(env, source.env, jwt.algorithms);
    case "key-set":
      return keySet(source.url, cache);
  }
}
