/**
 * The scratch database `resc migrate diff` compares in: an in-memory
 * PGlite where the committed migrations are replayed into one namespace and
 * the schema's DDL is applied to another, so both states are read by the
 * same catalog queries (docs/decisions/1240-migrations.md). Nothing touches
 * a real server.
 */
import { PGlite } from "@electric-sql/pglite";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { readCatalog, type Catalog } from "./catalog.js";

/** A migration file's name and text. */
export interface MigrationText {
  name: string;
  sql: string;
}

/** Both states of a schema, read from one scratch database. */
export interface ScratchStates {
  /** What the migrations build. */
  current: Catalog;
  /** What the schema declares. */
  desired: Catalog;
}

async function inNamespace(db: Executor, ns: string, sql: string): Promise<void> {
  await db.script(`CREATE SCHEMA IF NOT EXISTS ${ns}; SET search_path TO ${ns};\n${sql}`);
}

async function catalogOf(db: Executor, ns: string): Promise<Catalog> {
  // Names read while the namespace is on the search path come back unqualified, as in the migration files.
  await db.script(`SET search_path TO ${ns}`);
  return readCatalog(db, ns);
}

/**
 * Replays `migrations` in order, applies `ddl`, and reads both.
 * @throws Error naming the migration file whose SQL failed
 */
export async function scratchStates(migrations: readonly MigrationText[], ddl: string): Promise<ScratchStates> {
  const pglite = new PGlite();
  const db = createPgliteExecutor(pglite);
  try {
    for (const m of migrations) {
      try {
        await inNamespace(db, "resc_current", m.sql);
      } catch (e) {
        throw new Error(`migration ${m.name} does not apply to the state before it: ${(e as Error).message}`);
      }
    }
    await inNamespace(db, "resc_current", "");
    await inNamespace(db, "resc_desired", ddl);
    return { current: await catalogOf(db, "resc_current"), desired: await catalogOf(db, "resc_desired") };
  } finally {
    await db.close();
  }
}

/** The catalog `ddl` builds in a fresh scratch database (for comparing a live database with a schema). */
export async function catalogOfDdl(ddl: string): Promise<Catalog> {
  return (await scratchStates([], ddl)).desired;
}
