/**
 * `resc dev`'s authentication (docs/decisions/1367-access-rules.md,
 * "Authentication"): development tokens accepted, and the development
 * secret (runtime/auth/development.ts, shared with `resc token` and the
 * server `resc init` writes) standing in for an unset `secret_env` variable.
 */
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { MountAuthOptions } from "../../runtime/auth/mounting.js";
import { DEVELOPMENT_SECRET_FILE, developmentSecret, secretStandIn } from "../../runtime/auth/development.js";

/**
 * `resc dev`'s authentication of `service`: development tokens accepted,
 * and the development secret in place of an unset `secret_env` variable.
 * @param announce receives the line saying the development secret is used, once per variable
 */
export function developmentAuth(
  service: ServiceDescriptor,
  env: Readonly<Record<string, string | undefined>>,
  announce: (line: string) => void,
  announced: Set<string> = new Set(),
): MountAuthOptions {
  const standIn = secretStandIn(service, env);
  if (standIn === undefined) return { env, development: true };
  if (!announced.has(standIn)) {
    announced.add(standIn);
    announce(
      `resc: ${standIn} is not set: tokens are verified with the development secret in ${DEVELOPMENT_SECRET_FILE} (mint one with resc token)`,
    );
  }
  return { env: { ...env, [standIn]: developmentSecret() }, development: true };
}
