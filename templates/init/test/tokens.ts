/**
 * Tokens for the tests, as `npm run token -- --sub alice` prints them: `resc token` signs them with the
 * development secret in .resc/jwt-secret, which `createApp` verifies with while the schema's secret variable
 * is unset (see `authentication` in app.ts).
 */
import { execFile } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { service } from "../generated/app/index.js";

/** resc's command line, from the installed package. */
const resc = fileURLToPath(new URL("bin/resc.js", import.meta.resolve("resc/package.json")));

/**
 * Unsets `DATABASE_URL` and the schema's secret variable for this process, so a test runs on an embedded
 * database of its own and verifies with the development secret, whatever the shell it runs in has set.
 */
export function isolate(): void {
  delete process.env.DATABASE_URL;
  const variable = service.auth?.jwt?.secretEnv;
  if (variable !== undefined) delete process.env[variable];
}

/**
 * The `Authorization` header carrying a development token for the subject `sub`.
 * @param args more arguments of `resc token` (`--role admin`, `--claim org=…`)
 * @throws Error with resc token's message when it mints none (public-key settings, a claim the schema requires)
 */
export async function bearer(sub: string, ...args: string[]): Promise<{ authorization: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [
      resc,
      "token",
      "schema.resource",
      "--sub",
      sub,
      ...args,
    ]);
    return { authorization: `Bearer ${stdout.trim()}` };
  } catch (e) {
    throw new Error(`resc token: ${((e as { stderr?: string }).stderr ?? String(e)).trim()}`);
  }
}
