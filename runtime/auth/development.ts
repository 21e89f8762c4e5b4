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
import type { ClaimDescriptor, ServiceDescriptor } from "../descriptor.js";
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

/** The fixed uuid of example tokens: any would do, one keeps the printed commands the same from run to run. */
const EXAMPLE_UUID = "3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70";

/**
 * One example value of claim `c`'s type, as `resc token --claim` reads it (JSON when it parses, else the text):
 * the fixed uuid for a uuid, `1` for the numbers, `true`, the first value of an enum, `example` for a text;
 * an array claim gets a JSON array of that one value. The one place the examples are chosen, for
 * {@link developmentTokenArguments}.
 */
export function exampleClaimValue(c: ClaimDescriptor): string {
  let one: string | number | boolean;
  switch (c.kind) {
    case "uuid":
      one = EXAMPLE_UUID;
      break;
    case "integer":
    case "bigint":
    case "numeric":
    case "float":
      one = 1;
      break;
    case "boolean":
      one = true;
      break;
    case "enum":
      one = c.enumValues?.[0] ?? "example";
      break;
    default:
      one = "example";
  }
  if (c.array) return JSON.stringify([one]);
  if (typeof one !== "string") return String(one);
  // A text that would parse as JSON (an enum value `true`, `1`) is given as a JSON string, so it stays a text.
  try {
    JSON.parse(one);
    return JSON.stringify(one);
  } catch {
    return one;
  }
}

/**
 * The arguments of `resc token` (after `FILE`) for a development token of `subject` that `service` accepts
 * (docs/decisions/1242-init.md, 1367-access-rules.md): `--sub`, then `--role R` when the schema has no
 * `default_role` (the first role other than the anonymous one that some access block grants `list` of a
 * served collection, tables in order, else the first such role), then `--claim NAME=VALUE` for each
 * required claim the schema declares but `sub` (always a text, given by `--sub`; {@link exampleClaimValue}).
 * What `resc init` prints, its README shows, its server's notice says and its smoke test mints with. Empty
 * when the service has no `auth` block.
 */
export function developmentTokenArguments(service: ServiceDescriptor, subject = "alice"): string[] {
  const auth = service.auth;
  if (!auth) return [];
  const args = ["--sub", subject];
  if (auth.defaultRole === undefined) {
    const roles = auth.roles.filter((r) => r !== auth.anonymous);
    const listing = service.tables
      .filter((t) => t.resource?.ops.list)
      .flatMap((t) => (t.access ?? []).filter((a) => a.ops.includes("list")).flatMap((a) => a.roles))
      .find((r) => roles.includes(r));
    const role = listing ?? roles[0];
    if (role !== undefined) args.push("--role", role);
  }
  for (const c of auth.claims)
    if (c.name !== "sub" && !c.nullable) args.push("--claim", `${c.name}=${exampleClaimValue(c)}`);
  return args;
}

/** Shell words of `args`, each single-quoted when it holds anything but letters, digits and `-_.,:=/@+`. */
export function shellWords(args: readonly string[]): string {
  return args.map((a) => (/^[\w.,:=/@+-]+$/.test(a) ? a : `'${a.replaceAll("'", `'\\''`)}'`)).join(" ");
}

/**
 * The command that prints a development token for `service` in a project `resc init` wrote:
 * `npm run -s token -- --sub alice …` ({@link developmentTokenArguments}), ready for `TOKEN=$(…)`.
 */
export function developmentTokenCommand(service: ServiceDescriptor, subject = "alice"): string {
  return `npm run -s token -- ${shellWords(developmentTokenArguments(service, subject))}`;
}
