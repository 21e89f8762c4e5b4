/**
 * The JWT settings an authenticator works with: the schema's `jwt { … }`
 * with what `resc serve`'s flags (or `MountOptions.auth.jwt`) override, and
 * the checks that they can verify anything at all
 * (docs/decisions/1367-access-rules.md, "Authentication"). Every refusal is
 * an {@link AuthConfigError} naming the setting and its flag.
 */
import { JWT_ALGORITHM_FAMILIES, JWT_ALGORITHMS } from "./algorithms.js";
import type { JwtAlgorithm, JwtDescriptor } from "../descriptor.js";
import { AuthConfigError } from "./errors.js";

/** Default allowed clock skew for `exp` and `nbf`, in seconds (decision 1367). */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** The HMAC algorithms, each with the shortest secret it accepts in bytes (its hash's output length, RFC 7518 §3.2). */
export const HMAC_MIN_SECRET_BYTES: Readonly<Partial<Record<JwtAlgorithm, number>>> = {
  HS256: 32,
  HS384: 48,
  HS512: 64,
};

/** Every algorithm an authenticator knows; `none` is never one. */
const KNOWN: ReadonlySet<string> = new Set<string>(JWT_ALGORITHMS);

/** Whether `alg` is an HMAC algorithm (a shared secret) rather than a public-key one. */
export function isHmac(alg: JwtAlgorithm): boolean {
  return JWT_ALGORITHM_FAMILIES[alg] === "hmac";
}

/** How each key source is spelled in the schema and as a `resc serve` flag, for messages. */
export const SETTING_NAMES = {
  secretEnv: "secret_env (--jwt-secret-env)",
  jwksUrl: "jwks_url (--jwks-url)",
  publicKeyEnv: "public_key_env (--jwt-public-key-env)",
  issuer: "issuer (--jwt-issuer)",
  audience: "audience (--jwt-audience)",
} as const;

/**
 * The settings with `overrides` applied: each one given replaces the
 * schema's. A key source given (`secretEnv`, `jwksUrl` or `publicKeyEnv`)
 * replaces all of the schema's key sources, so `--jwks-url` on a schema
 * naming `secret_env` verifies with the key set alone. An empty string
 * override is no override.
 * @param schema the schema's `jwt { … }`, absent when it declares none
 * @returns the settings, or undefined when neither gives any
 * @throws AuthConfigError when overrides are given for a schema without `jwt { … }` and they name no algorithms
 */
export function withOverrides(
  schema: JwtDescriptor | undefined,
  overrides: Partial<JwtDescriptor> | undefined,
): JwtDescriptor | undefined {
  const given = Object.fromEntries(
    Object.entries(overrides ?? {}).filter(([, v]) => v !== undefined && v !== ""),
  ) as Partial<JwtDescriptor>;
  if (Object.keys(given).length === 0) return schema;
  if (!schema && given.algorithms === undefined)
    throw new AuthConfigError(
      "the --jwt-… settings override the schema's auth { jwt { … } } block, and the schema has none: " +
        "declare jwt { algorithms = [...] } in its auth block",
    );
  const keySourceGiven =
    given.secretEnv !== undefined || given.jwksUrl !== undefined || given.publicKeyEnv !== undefined;
  const base: JwtDescriptor = schema
    ? { ...schema }
    : { algorithms: [], clockToleranceSeconds: DEFAULT_CLOCK_TOLERANCE_SECONDS };
  if (keySourceGiven) {
    delete base.secretEnv;
    delete base.jwksUrl;
    delete base.publicKeyEnv;
  }
  return { ...base, ...given };
}

/** The key source settings name: exactly one is set once {@link checkSettings} passed. */
export type KeySource =
  { kind: "secret"; env: string } | { kind: "public-key"; env: string } | { kind: "key-set"; url: URL };

/** Hosts a key set may be fetched from over plain HTTP: this machine only. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Checks that `jwt` can verify tokens and says where its keys are: known
 * algorithms, all HMAC (with `secretEnv`) or all public-key (with `jwksUrl`
 * or `publicKeyEnv`), exactly one key source, a key set URL that is
 * `https:` (or `http:` on a loopback address), a clock tolerance of zero or
 * more seconds.
 * @throws AuthConfigError naming the setting and its flag
 */
export function checkSettings(jwt: JwtDescriptor): KeySource {
  if (jwt.algorithms.length === 0)
    throw new AuthConfigError("jwt algorithms is empty: name at least one (HS256, RS256, …)");
  const unknown = jwt.algorithms.filter((a) => !KNOWN.has(a));
  if (unknown.length > 0)
    throw new AuthConfigError(`jwt algorithms names ${unknown.join(", ")}, which is none of ${[...KNOWN].join(", ")}`);
  const hmac = jwt.algorithms.filter(isHmac);
  if (hmac.length > 0 && hmac.length < jwt.algorithms.length)
    throw new AuthConfigError(
      `jwt algorithms mixes shared-secret (${hmac.join(", ")}) and public-key algorithms; a service verifies with one kind of key`,
    );
  const tolerance = jwt.clockToleranceSeconds;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new AuthConfigError(`jwt clock_tolerance must be zero or more seconds, not ${String(tolerance)}`);
  const sources = (["secretEnv", "jwksUrl", "publicKeyEnv"] as const).filter((k) => jwt[k] !== undefined);
  if (sources.length === 0)
    throw new AuthConfigError(
      hmac.length > 0
        ? `jwt ${jwt.algorithms.join(", ")} needs a secret: set ${SETTING_NAMES.secretEnv}`
        : `jwt ${jwt.algorithms.join(", ")} needs keys: set ${SETTING_NAMES.jwksUrl} or ${SETTING_NAMES.publicKeyEnv}`,
    );
  if (sources.length > 1)
    throw new AuthConfigError(
      `jwt names ${sources.map((s) => SETTING_NAMES[s]).join(" and ")}: give exactly one key source`,
    );
  const source = sources[0]!;
  if (hmac.length > 0 && source !== "secretEnv")
    throw new AuthConfigError(
      `jwt ${hmac.join(", ")} verifies with a shared secret: set ${SETTING_NAMES.secretEnv}, not ${SETTING_NAMES[source]}`,
    );
  if (hmac.length === 0 && source === "secretEnv")
    throw new AuthConfigError(
      `jwt ${jwt.algorithms.join(", ")} verifies with public keys: set ${SETTING_NAMES.jwksUrl} or ${SETTING_NAMES.publicKeyEnv}, not ${SETTING_NAMES.secretEnv}`,
    );
  if (source === "secretEnv") return { kind: "secret", env: jwt.secretEnv! };
  if (source === "publicKeyEnv") return { kind: "public-key", env: jwt.publicKeyEnv! };
  let url: URL;
  try {
    url = new URL(jwt.jwksUrl!);
  } catch {
    throw new AuthConfigError(`jwt ${SETTING_NAMES.jwksUrl} is not a URL: ${jwt.jwksUrl!}`);
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK.has(url.hostname)))
    throw new AuthConfigError(
      `jwt ${SETTING_NAMES.jwksUrl} must be an https: URL (http: only on this machine, localhost or 127.0.0.1), not ${url.protocol}//${url.host}: keys fetched in the clear could be replaced`,
    );
  return { kind: "key-set", url };
}
