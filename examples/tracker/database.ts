/**
 * The tracker's database: the embedded PostgreSQL in a data directory (DDL
 * and seed on first start, reused afterwards, like `resc dev`), or the
 * server named by `DATABASE_URL`, used as is.
 */
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { createPgExecutor, openEmbeddedDatabase, type Executor, type ServiceDescriptor } from "resc/runtime";
import type { TrackerConfig } from "./config.js";

/** `examples/tracker/schema.sql`: `resc sql spec.resource`, committed (docs/decisions/0700). */
export const SCHEMA_FILE = fileURLToPath(new URL("./schema.sql", import.meta.url));
/** `examples/tracker/seed.sql`: two tenants with a few rows in every table. */
export const SEED_FILE = fileURLToPath(new URL("./seed.sql", import.meta.url));

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Checks that every table and stored column of `service` exists, by
 * selecting them with `LIMIT 0` (nothing is read or changed).
 * @throws Error naming the first table that is missing or incomplete, with the file to apply
 */
export async function checkTables(db: Executor, service: ServiceDescriptor): Promise<void> {
  for (const table of service.tables) {
    const cols = table.columns.filter((c) => c.computed === undefined).map((c) => quote(c.name));
    try {
      await db.query({ text: `SELECT ${cols.join(", ")} FROM ${quote(table.name)} LIMIT 0`, values: [] });
    } catch {
      throw new Error(
        `the database has no table "${table.name}" with the tracker's columns; apply examples/tracker/schema.sql first`,
      );
    }
  }
}

/**
 * Opens the database `config` names.
 * @param log progress lines (creating or reusing the embedded database)
 * @throws Error when `DATABASE_URL` is unreachable or lacks the tracker's
 *   tables, or when the data directory cannot be used (see `openEmbeddedDatabase`)
 */
export async function openDatabase(
  config: TrackerConfig,
  service: ServiceDescriptor,
  log: (line: string) => void,
): Promise<Executor> {
  if (config.databaseUrl !== undefined) {
    const db = createPgExecutor({ connectionString: config.databaseUrl });
    try {
      await db.query({ text: "SELECT 1", values: [] }).catch((e: unknown) => {
        throw new Error(`cannot reach DATABASE_URL: ${e instanceof Error ? e.message : String(e)}`);
      });
      await checkTables(db, service);
    } catch (e) {
      await db.close();
      throw e;
    }
    return db;
  }
  const [ddl, seed] = await Promise.all([readFile(SCHEMA_FILE, "utf8"), readFile(SEED_FILE, "utf8")]);
  const { executor } = await openEmbeddedDatabase({ dataDir: config.dataDir, ddl, seed, reset: config.reset, log });
  return executor;
}
