/**
 * The scratch database `resc migrate diff` compares in: an in-memory
 * PGlite where the committed migrations are replayed, read, and the
 * schema's DDL is then applied to the emptied database and read, so both
 * states are read by the same catalog queries
 * (docs/decisions/1240-migrations.md). Nothing touches a real server.
 */
import type { Executor } from "../../runtime/exec/executor.js";
import { embeddedScratch, type ScratchDatabase } from "./scratch-database.js";
import { readCatalog } from "../read.js";
import type { Catalog } from "../model.js";
import { applyPrelude, readPrelude } from "./prelude.js";

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

/** Where a scratch comparison reads, what it starts from, and in which database. */
export interface ScratchOptions {
  /** The namespaces to read (default `public`). */
  schemas?: readonly string[];
  /** Statements run first: a live database's extensions and functions (`readPrelude`), for the drift gate and a baseline. */
  prelude?: readonly string[];
  /** A scratch database already starting (`startScratch`), so its start overlaps the caller's other work; embedded when absent. */
  database?: Promise<ScratchDatabase>;
}

/** Applies `ddl` to `db`, or throws saying the schema's DDL failed, with what the prelude could not make. */
async function applyDdl(db: Executor, ddl: string, missed: readonly string[]): Promise<void> {
  try {
    await db.script(ddl);
  } catch (e) {
    const also = missed.length > 0 ? ` (the scratch database could not recreate: ${missed.join("; ")})` : "";
    throw new Error(`the schema's DDL (resc sql) does not apply to an empty database: ${(e as Error).message}${also}`);
  }
}

/**
 * Replays `migrations` in order and reads what they build, then empties
 * the database, applies `ddl` and reads that. Both run in namespace
 * `public` with the default search path, as on a real server, so a
 * name qualified with `public.` (Pagila's `nextval('public.…_seq')`)
 * means what it means there, and names read back unqualified as a live
 * database's do (docs/decisions/1250-sequences.md).
 * `options.prelude` runs first; what the migrations made that the catalog does not hold (extensions, functions)
 * is made again before the DDL. With no migrations, the DDL goes straight onto the prelude.
 * @throws Error naming the migration file whose SQL failed, or saying the schema's own DDL failed
 */
export async function scratchStates(
  migrations: readonly MigrationText[],
  ddl: string,
  options: ScratchOptions = {},
): Promise<ScratchStates> {
  const schemas = options.schemas ?? ["public"];
  const scratch = await (options.database ?? embeddedScratch());
  const db = scratch.db;
  try {
    const missed = await applyPrelude(db, options.prelude ?? []);
    for (const m of migrations) {
      try {
        await db.script(m.sql);
      } catch (e) {
        throw new Error(`migration ${m.name} does not apply to the state before it: ${(e as Error).message}`);
      }
    }
    const current = await readCatalog(db, schemas);
    if (migrations.length > 0) {
      // What the migrations made that the language does not describe, the DDL may call: kept.
      const own = await readPrelude(db);
      await db.script(RESET);
      missed.push(...(await applyPrelude(db, own)));
    }
    await applyDdl(db, ddl, missed);
    return { current, desired: await readCatalog(db, schemas) };
  } finally {
    await scratch.close();
  }
}

/**
 * The catalog `ddl` builds in a fresh scratch database after `options.prelude`, read over `options.schemas` (for
 * comparing a live database with a schema).
 * @throws Error saying the schema's own DDL failed
 */
export async function catalogOfDdl(ddl: string, options: ScratchOptions = {}): Promise<Catalog> {
  const scratch = await (options.database ?? embeddedScratch());
  const db = scratch.db;
  try {
    await applyDdl(db, ddl, await applyPrelude(db, options.prelude ?? []));
    return await readCatalog(db, options.schemas ?? ["public"]);
  } finally {
    await scratch.close();
  }
}
