/**
 * The development secret (docs/decisions/1367-access-rules.md,
 * "Authentication"): what HS* tokens are verified with on a machine where
 * the schema's `secret_env` variable is unset, and what `resc token` signs
 * with. `resc dev` uses it, and so does the server `resc init` writes, so a
 * new project answers tokens before anyone chose a secret. Made at random
 * once per project, kept in `.resc/jwt-secret` beside the embedded databases
 * (`.resc/` is ignored by git), readable by its owner only. Read and written
 * synchronously: it is one small file, read once per start.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ServiceDescriptor } from "../descriptor.js";
import { isHmac } from "./settings.js";

/** Where the secret is kept, relative to the working directory (as `resc dev`'s `.resc/db`). */
export const DEVELOPMENT_SECRET_FILE = ".resc/jwt-secret";

/**
 * The development secret of the project in the working directory: read
 * from `file` (default {@link DEVELOPMENT_SECRET_FILE}), made first when
 * there is none (64 random bytes as base64url text, 86 characters: long
 * enough for HS512; the file's mode 0600).
 * @throws Error naming the file when it cannot be read or written
 */
export function developmentSecret(file: string = DEVELOPMENT_SECRET_FILE): string {
  const at = path.resolve(file);
  try {
    const kept = readFileSync(at, "utf8").trim();
    if (kept !== "") return kept;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new Error(`cannot read the development secret ${file}: ${(e as Error).message}`);
  }
  const secret = randomBytes(64).toString("base64url");
  try {
    mkdirSync(path.dirname(at), { recursive: true });
    // `wx`: two starts at once keep the first one's secret.
    writeFileSync(at, secret + "\n", { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return developmentSecret(file);
    throw new Error(`cannot write the development secret ${file}: ${(e as Error).message}`);
  }
  return secret;
}

/**
 * The name of the variable `service`'s HS* settings read the secret from
 * when it is unset in `env` (so the development secret stands in for it),
 * else undefined: no `jwt` settings, public-key algorithms, or the variable set.
 */
export function secretStandIn(
  service: ServiceDescriptor,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const jwt = service.auth?.jwt;
  if (!jwt || !jwt.algorithms.every(isHmac) || jwt.secretEnv === undefined) return undefined;
  const set = env[jwt.secretEnv];
  return set === undefined || set === "" ? jwt.secretEnv : undefined;
}
