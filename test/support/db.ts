/**
 * Finds a PostgreSQL for the tests and gives each caller a fresh database.
 *
 * Order (DEVELOPERS.md, Tests): `DATABASE_URL` when set; else the local
 * server at 127.0.0.1:5432 (user postgres, trust auth); else a
 * testcontainers PostgreSQL when Docker answers; else embedded PGlite. Each
 * call creates its own database and `drop()` removes it.
 */
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { pgliteExtensions } from "../../runtime/exec/pglite-extensions.js";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";

/** A database made for one test file. */
export interface TestDatabase {
  kind: "pg" | "pglite";
  executor: Executor;
  /** Connection string of the database (pg only). */
  url?: string;
  /** The PGlite instance (pglite only). */
  pglite?: PGlite;
  /** Closes connections and drops the database. */
  drop(): Promise<void>;
}

let serverUrl: Promise<string | undefined> | undefined;

async function reachable(url: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await c.connect();
    await c.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => {});
  }
}

async function startContainer(): Promise<string | undefined> {
  try {
    const { PostgreSqlContainer } = await import("@testcontainers/postgresql");
    const container = await new PostgreSqlContainer("postgres:16-alpine").start();
    return container.getConnectionUri();
  } catch {
    return undefined;
  }
}

/** The admin URL of a reachable server, or undefined when only PGlite is left. */
export function findServer(): Promise<string | undefined> {
  serverUrl ??= (async () => {
    if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
    const local = "postgres://postgres@127.0.0.1:5432/postgres";
    if (await reachable(local)) return local;
    if (process.env.RESC_TEST_NO_CONTAINERS !== "1") {
      const url = await startContainer();
      if (url) return url;
    }
    return undefined;
  })();
  return serverUrl;
}

/**
 * The prefix of every database this run creates: `RESC_TEST_DB_PREFIX`
 * (default `resc_`, so a shared server can keep runs apart) and the run's
 * id, which `test/support/global-db.ts` sets before the workers start and
 * uses afterwards to drop whatever a failed setup left behind.
 */
export function runPrefix(): string {
  const prefix = (process.env.RESC_TEST_DB_PREFIX ?? "resc_").toLowerCase();
  if (!/^[a-z_][a-z0-9_]{0,30}$/.test(prefix)) {
    throw new Error(
      `RESC_TEST_DB_PREFIX must be a lowercase SQL identifier of at most 31 characters, not ${JSON.stringify(prefix)}`,
    );
  }
  const run = process.env.RESC_TEST_RUN_ID ?? `p${process.pid}`;
  return `${prefix}${run}_`;
}

/** The admin URL of the server the tests use when one is known without starting anything (no container). */
export async function knownServer(): Promise<string | undefined> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  const local = "postgres://postgres@127.0.0.1:5432/postgres";
  return (await reachable(local)) ? local : undefined;
}

/** Drops every database whose name starts with `prefix` (names listed from pg_database, quoted). */
export async function dropDatabasesWithPrefix(admin: string, prefix: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [prefix],
    );
    for (const r of rows) await c.query(`DROP DATABASE IF EXISTS "${r.datname.replace(/"/g, '""')}" WITH (FORCE)`);
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

/** `max_prepared_statements` of the suites' PgBouncer 1.21+, and the executors' `maxPreparedStatements` behind it. */
export const PREPARED_BEHIND_PGBOUNCER = 200;

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = "/" + db;
  return u.toString();
}

/**
 * The executor the suites use on `url`: direct, or, when the global setup
 * started a PgBouncer (`RESC_TEST_PGBOUNCER=1`, test/support/global-db.ts),
 * through it in `pgbouncer` mode (docs/decisions/1301-pgbouncer.md;
 * test/serve/pgbouncer-pagila.test.ts runs the Pagila suites that way),
 * preparing statements with `RESC_TEST_PGBOUNCER=prepared` (decision 1347).
 * Setup (DDL, COPY) still goes to `url` directly.
 */
function executorFor(url: string) {
  const port = process.env.RESC_TEST_PGBOUNCER_PORT;
  if (!port) return createPgExecutor({ connectionString: url, max: 5 });
  const through = new URL(url);
  through.hostname = "127.0.0.1";
  through.port = port;
  const prepared =
    process.env.RESC_TEST_PGBOUNCER === "prepared" ? { maxPreparedStatements: PREPARED_BEHIND_PGBOUNCER } : {};
  return createPgExecutor({ connectionString: through.toString(), max: 5, pgbouncer: true, ...prepared });
}

/**
 * Creates a fresh database named `resc_<label>_<random>` and an executor on
 * it. `RESC_TEST_PGLITE=1` forces the embedded database.
 */
export async function createTestDatabase(label = "t"): Promise<TestDatabase> {
  const admin = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
  if (!admin) {
    const pglite = new PGlite({ extensions: await pgliteExtensions() });
    await pglite.waitReady;
    return {
      kind: "pglite",
      pglite,
      executor: createPgliteExecutor(pglite),
      drop: () => pglite.close(),
    };
  }
  const name = `${runPrefix()}${label.replace(/\W/g, "_").toLowerCase()}_${Math.random().toString(36).slice(2, 8)}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE "${name}"`);
  await c.end();
  const url = withDatabase(admin, name);
  const executor = executorFor(url);
  return {
    kind: "pg",
    url,
    executor,
    async drop() {
      await executor.close();
      const a = new pg.Client({ connectionString: admin });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await a.end();
    },
  };
}
