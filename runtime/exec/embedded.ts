/**
 * An embedded PostgreSQL (PGlite) kept in a data directory, for
 * applications built on resc that want `resc dev`'s zero-setup database
 * (docs/decisions/0001-dev-database.md, 0703-embedded-database-in-the-runtime.md):
 * the first start creates the directory and applies the DDL and the seed;
 * later starts reuse it, so rows survive a restart.
 *
 * The runtime does not compile schemas, so the caller passes the DDL text
 * (the output of `resc sql`). A SHA-256 of that text is kept next to the
 * database files; a later start with different DDL refuses to open the
 * directory instead of serving tables that no longer match.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, readdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Executor } from "./executor.js";
import { createPgliteExecutor } from "./pglite.js";
import { lockDataDirectory } from "./data-dir-lock.js";

/** Options of {@link openEmbeddedDatabase}. */
export interface EmbeddedDatabaseOptions {
  /** Directory holding the database files; created when absent. */
  dataDir: string;
  /** Schema DDL (`resc sql FILE`), applied when the directory is created. */
  ddl: string;
  /** SQL run after the DDL when the directory is created (rows to start with). */
  seed?: string;
  /** Delete the directory first (only when it is empty or holds a database). */
  reset?: boolean;
  /** Progress messages (creating, reusing); default none. */
  log?: (line: string) => void;
  /**
   * Called when the directory was made from a different schema, with the
   * open database: it brings the database to `ddl`'s schema keeping the
   * rows (`resc dev` computes and applies a migration), or throws to refuse.
   * When it resolves, the directory is recorded as made from `ddl`.
   * Without it, such a directory is refused (the runtime does not compile
   * schemas; docs/decisions/1241-dev-keeps-data.md).
   */
  migrate?: (db: Executor) => Promise<void>;
}

/** An open embedded database. */
export interface EmbeddedDatabase {
  /** Runs statements; `close()` shuts the database down and flushes its files. */
  executor: Executor;
  /** True when this call created the directory and applied the DDL and seed. */
  fresh: boolean;
}

/** Name of the file recording which DDL built the directory. */
export const SCHEMA_MARKER = "resc-schema.sha256";

/** Thrown when a data directory cannot be used as is; the message says what to do. */
export class EmbeddedDatabaseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EmbeddedDatabaseError";
  }
}

function digest(ddl: string): string {
  return createHash("sha256").update(ddl, "utf8").digest("hex");
}

/** What the directory holds: nothing, a database, or something else. */
async function inspect(dir: string): Promise<"absent" | "empty" | "database" | "foreign"> {
  if (!existsSync(dir)) return "absent";
  const entries = await readdir(dir);
  if (entries.length === 0) return "empty";
  return entries.includes("PG_VERSION") ? "database" : "foreign";
}

/** Removes the database files in `dir`, keeping the (empty) directory. */
async function empty(dir: string): Promise<void> {
  for (const e of await readdir(dir)) await rm(path.join(dir, e), { recursive: true, force: true });
}

/**
 * Opens the database in `options.dataDir`, creating it when the directory
 * is absent or empty. The directory is locked for this process first
 * (`<dir>.lock` beside it, holding the pid; docs/decisions/1251-data-directory-lock.md)
 * and stays locked until `executor.close()` or the process exits, so a
 * second process never reads, migrates or resets it meanwhile.
 *
 * @throws DataDirectoryLockedError when another live process holds the
 *   directory (nothing is changed); EmbeddedDatabaseError when the
 *   directory holds something other than a database (never deleted, even
 *   with `reset`), when it was built from different DDL or its creation
 *   did not finish (the message suggests `reset`); the driver's error when
 *   the DDL or the seed fails (the half-made database is then removed, and the directory too when this call made it)
 */
export async function openEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dir = path.resolve(options.dataDir);
  const log = options.log ?? (() => {});
  if ((await inspect(dir)) === "foreign") {
    throw new EmbeddedDatabaseError(`${dir} is not empty and holds no database; choose another data directory`);
  }
  const existed = existsSync(dir);
  await mkdir(dir, { recursive: true });
  const release = lockDataDirectory(dir);
  try {
    return await openLocked(dir, options, log, release, existed);
  } catch (e) {
    release();
    throw e;
  }
}

async function openLocked(
  dir: string,
  options: EmbeddedDatabaseOptions,
  log: (line: string) => void,
  release: () => void,
  existed: boolean,
): Promise<EmbeddedDatabase> {
  let state = await inspect(dir);
  if (options.reset && state === "database") {
    await empty(dir);
    state = "empty";
  }
  const fresh = state !== "database";
  const want = digest(options.ddl);
  let migrate = false;
  if (!fresh) {
    const marker = path.join(dir, SCHEMA_MARKER);
    const have = existsSync(marker) ? (await readFile(marker, "utf8")).trim() : undefined;
    if (have !== undefined && have !== want && options.migrate) migrate = true;
    else if (have !== want) {
      const why =
        have === undefined ? "was not finished (or not made from a schema)" : "was made from a different schema";
      throw new EmbeddedDatabaseError(
        `the embedded database in ${dir} ${why}; delete the directory or reset it to start fresh`,
      );
    }
    if (!migrate) log(`reusing the embedded database in ${dir}`);
  } else {
    log(`creating the embedded database in ${dir} (the first start runs initdb; later starts are quick)`);
  }
  // Loaded on demand: applications on a PostgreSQL server never pay for the WASM build.
  const { PGlite } = await import("@electric-sql/pglite");
  const { pgliteExtensions } = await import("./pglite-extensions.js");
  const db = new PGlite(dir, { extensions: await pgliteExtensions() });
  await db.waitReady;
  const opened = createPgliteExecutor(db);
  const executor: Executor = {
    ...opened,
    close: async () => {
      try {
        await opened.close();
      } finally {
        release();
      }
    },
  };
  if (migrate) {
    try {
      await options.migrate!(executor);
      await writeFile(path.join(dir, SCHEMA_MARKER), want + "\n", "utf8");
    } catch (e) {
      await db.close().catch(() => {});
      throw e;
    }
  }
  if (fresh) {
    try {
      await executor.script(options.ddl);
      if (options.seed !== undefined) await executor.script(options.seed);
      await writeFile(path.join(dir, SCHEMA_MARKER), want + "\n", "utf8");
    } catch (e) {
      await db.close().catch(() => {});
      // A half-made database goes: the directory too, when this call made it.
      if (existed) await empty(dir);
      else await rm(dir, { recursive: true, force: true });
      throw e;
    }
  }
  return { executor, fresh };
}
