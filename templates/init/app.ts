/**
 * The service: the routes `resc generate` wrote to generated/app, mounted
 * on a Hono app, with the API description at /openapi.json and /docs.
 *
 * - DATABASE_URL set: that PostgreSQL, which `npm run migrate:deploy` keeps
 *   up to date (nothing is applied from here).
 * - Otherwise: an embedded PostgreSQL in .resc/app, made from migrations/ and
 *   brought up to date with any new migration at start, keeping its rows.
 *   Not .resc/db: that one is `resc dev`'s, which it migrates by comparing
 *   the schema with it (recording no migration), so the two never share one.
 *
 * Tokens are verified as the schema's `auth` block says (resc's docs/access.md):
 * see `authentication` below for where the secret comes from.
 *
 * The webhooks `hooks.ts` exports are delivered from here, as `resc serve` does.
 */
import { readdir, readFile } from "node:fs/promises";
import process from "node:process";
import { Hono } from "hono";
import { answerProblems } from "resc/ops";
import {
  createPgExecutor,
  DEVELOPMENT_SECRET_FILE,
  developmentSecret,
  developmentTokenCommand,
  mountDocs,
  openEmbeddedDatabase,
  secretStandIn,
  type Executor,
  type MountAuthOptions,
} from "resc/runtime";
import { mount, service } from "./generated/app/index.js";
import { openapi } from "./generated/app/openapi.js";
import { hooks, webhooks } from "./hooks.js";

/** The migrations, in order. */
async function migrations(): Promise<{ name: string; sql: string }[]> {
  const names = (await readdir("migrations")).filter((n) => /^\d+_.*\.sql$/.test(n)).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(`migrations/${name}`, "utf8") })));
}

/** Applies the migrations the embedded database has not seen, each with its history row. */
async function applyPending(db: Executor): Promise<void> {
  await db.script(
    "CREATE TABLE IF NOT EXISTS resc_migrations (name text PRIMARY KEY, checksum text NOT NULL DEFAULT '', applied_at timestamptz NOT NULL DEFAULT now())",
  );
  const done = new Set(
    (await db.query({ text: "SELECT name FROM resc_migrations", values: [] })).rows.map((r) => r.name),
  );
  for (const m of await migrations()) {
    if (done.has(m.name)) continue;
    await db.transaction(async (tx) => {
      await tx.script(m.sql);
      await tx.query({ text: "INSERT INTO resc_migrations (name) VALUES ($1)", values: [m.name] });
    });
  }
}

/** Opens the database this process serves. */
export async function openDatabase(dataDir = ".resc/app"): Promise<Executor> {
  if (process.env.DATABASE_URL) return createPgExecutor({ connectionString: process.env.DATABASE_URL });
  const names = (await migrations()).map((m) => m.name).join(", ");
  const { executor } = await openEmbeddedDatabase({
    dataDir,
    // What built the directory is the list of migrations; a new one is applied by `migrate`.
    ddl: `-- migrations: ${names}`,
    migrate: applyPending,
  });
  await applyPending(executor);
  return executor;
}

/**
 * How bearer tokens are verified, and the line saying so at start when the development secret is used.
 *
 * - The schema's `secret_env` variable set: tokens signed with that secret; development tokens (`npm run token`)
 *   are refused, as `resc serve` refuses them.
 * - Unset: the development secret in .resc/jwt-secret, made at random on first use (readable by you only, not
 *   committed), which `npm run token` signs with and `resc dev` verifies with too; its development tokens are
 *   accepted. Under NODE_ENV=production the variable must be set. The notice names the token command with the
 *   role and the claims the schema requires (`developmentTokenCommand`).
 * - A schema without HS* settings (no `auth` block, or public keys): as the schema says.
 */
export function authentication(env: NodeJS.ProcessEnv = process.env): { auth: MountAuthOptions; notice?: string } {
  const variable = secretStandIn(service, env);
  if (variable === undefined) return { auth: { env } };
  if (env.NODE_ENV === "production") throw new Error(`${variable} must be set when NODE_ENV=production`);
  return {
    auth: { env: { ...env, [variable]: developmentSecret() }, development: true },
    notice: `${variable} is not set: tokens are verified with the development secret in ${DEVELOPMENT_SECRET_FILE} (${developmentTokenCommand(service)} prints one)`,
  };
}

/**
 * The app: the generated routes and their description, problem documents for unknown paths and faults,
 * and the delivery of `webhooks`. Aborting `signal` ends change-feed streams and webhook delivery.
 */
export function createApp(db: Executor, signal?: AbortSignal, auth = authentication().auth): Hono {
  const app = new Hono();
  answerProblems(app, (e) => console.error(e));
  const mounted = mount(app, {
    db,
    hooks,
    auth,
    ...(webhooks.length > 0 ? { webhooks: { subscriptions: webhooks } } : {}),
    ...(signal ? { signal } : {}),
  });
  if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  const docs = mountDocs(app, openapi);
  if (!docs.ok) console.warn(`the API description is not served: ${docs.errors.map((e) => e.message).join("; ")}`);
  return app;
}
