/**
 * What `mountService` installs on each served resource when the schema has
 * an `auth` block (docs/decisions/1367-access-rules.md, "Authentication"):
 * the bearer middleware over an authenticator made from the schema's
 * settings and the mount's overrides.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { JwtDescriptor, ServiceDescriptor } from "../descriptor.js";
import type { KeysUnavailable, TokenRefused } from "./errors.js";
import type { KeySetCacheOptions } from "./keys.js";
import { bearerAuthentication } from "./middleware.js";
import { withOverrides } from "./settings.js";
import { createAuthenticator } from "./verify.js";

/** `MountOptions.auth`: how the schema's `auth` block is applied. */
export interface MountAuthOptions {
  /** Where `secret_env` and `public_key_env` are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Accept development tokens (`resc token`); `resc dev` only. Default false. */
  development?: boolean;
  /**
   * Settings replacing the schema's `jwt { … }` ones (`resc serve --jwt-secret-env`, `--jwks-url`,
   * `--jwt-public-key-env`, `--jwt-issuer`, `--jwt-audience`); a key source given replaces all of the schema's.
   */
  jwt?: Partial<JwtDescriptor>;
  /** Receives each refused token and each key set fetch that failed, with the request; default: none. */
  log?: (refusal: TokenRefused | KeysUnavailable, c: Context) => void;
  /** How a `jwks_url` key set is cached (seconds); defaults: 600, a 30 s cooldown, a 5 s timeout. */
  keySetCache?: KeySetCacheOptions;
  /**
   * How long (seconds) a token already verified is answered without verifying it again; default 60, never
   * longer than the key set is cached; 0 verifies every token (docs/decisions/1374-verified-token-cache.md).
   */
  verifiedMaxAgeSeconds?: number;
  /** `WWW-Authenticate`'s realm; default the service's title. */
  realm?: string;
}

/**
 * The middleware authenticating `service`'s resources, or undefined when
 * it has no `auth` block or `options` is `false`.
 * @throws AuthConfigError when the settings cannot verify tokens (see `createAuthenticator`)
 */
export function resourceAuthentication(
  service: ServiceDescriptor,
  options: MountAuthOptions | false | undefined,
): MiddlewareHandler | undefined {
  if (!service.auth || options === false) return undefined;
  const o = options ?? {};
  const jwt = withOverrides(service.auth.jwt, o.jwt);
  const auth = { ...service.auth, ...(jwt ? { jwt } : {}) };
  const authenticator = createAuthenticator({
    auth,
    ...(o.env ? { env: o.env } : {}),
    ...(o.development !== undefined ? { development: o.development } : {}),
    ...(o.keySetCache ? { keySetCache: o.keySetCache } : {}),
    ...(o.verifiedMaxAgeSeconds !== undefined ? { verifiedMaxAgeSeconds: o.verifiedMaxAgeSeconds } : {}),
  });
  return bearerAuthentication(authenticator, auth, {
    realm: o.realm ?? service.title,
    ...(o.log ? { log: o.log } : {}),
  });
}
