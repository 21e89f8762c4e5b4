/**
 * The scratch database `resc migrate diff` compares in: an in-memory
 * PGlite where the committed migrations are replayed, read, and the
 * schema's DDL is then applied to the emptied database and read, so both
 * states are read by the same catalog queries
 * (docs/decisions/1240-migrations.md). Nothing touches a real server.
 */
import { PGlite } from "@electric-sql/pglite";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import { pgliteExtensions } from "../../runtime/exec/pglite-extensions.js";
import { readCatalog, type Catalog } from "./catalog.js";
import { applyPrelude, readPrelude } from "./functions.js";

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

/**
 * Empties the database: drops every namespace but PostgreSQL's own (and
 * `information_schema`) and makes `public` anew, so the next script starts
 * from a new database's state whichever schemas the last one made.
 */
const RESET = `DO $$ DECLARE s text; BEGIN
  FOR s IN SELECT nspname FROM pg_namespace WHERE nspname !~ '^pg_' AND nspname <> 'information_schema' LOOP
    EXECUTE format('DROP SCHEMA %I CASCADE', s);
  END LOOP;
END $$; CREATE SCHEMA public; SET search_path TO public;`;

/**
 * Replays `migrations` in order and reads what they build, then empties
 * the database, applies `ddl` and reads that. Both run in namespace
 * `public` with the default search path, as on a real server, so a
 * name qualified with `public.` (Pagila's `nextval('public.…_seq')`)
 * means what it means there, and names read back unqualified as a live
 * database's do (docs/decisions/1250-sequences.md).
 * `prelude` runs first (a live database's extensions and functions, for the drift gate and a baseline); what the
 * migrations made that the catalog does not hold (extensions, functions) is made again before the DDL.
 * @throws Error naming the migration file whose SQL failed, or saying the schema's own DDL failed
 */
export async function scratchStates(
  migrations: readonly MigrationText[],
  ddl: string,
  schemas: readonly string[] = ["public"],
  prelude: readonly string[] = [],
): Promise<ScratchStates> {
  const pglite = new PGlite({ extensions: await pgliteExtensions() });
  const db = createPgliteExecutor(pglite);
  try {
    const missed = await applyPrelude(db, prelude);
    for (const m of migrations) {
      try {
        await db.script(m.sql);
      } catch (e) {
        throw new Error(`migration ${m.name} does not apply to the state before it: ${(e as Error).message}`);
      }
    }
    const current = await readCatalog(db, schemas);
    // What the migrations (or the prelude) made that the language does not describe, the DDL may call: kept.
    const own = await readPrelude(db);
    await db.script(RESET);
    missed.push(...(await applyPrelude(db, own)));
    try {
      await db.script(ddl);
    } catch (e) {
      const also = missed.length > 0 ? ` (the scratch database could not recreate: ${missed.join("; ")})` : "";
      throw new Error(
        `the schema's DDL (resc sql) does not apply to an empty database: ${(e as Error).message}${also}`,
      );
    }
    return { current, desired: await readCatalog(db, schemas) };
  } finally {
    await db.close();
  }
}

/**
 * The catalog `ddl` builds in a fresh scratch database, read over `schemas` (for comparing a live database with a
 * schema), after `prelude` (the live database's extensions and functions, from `readPrelude`).
 */
export async function catalogOfDdl(
  ddl: string,
  schemas: readonly string[] = ["public"],
  prelude: readonly string[] = [],
): Promise<Catalog> {
  return (await scratchStates([], ddl, schemas, prelude)).desired;
}
