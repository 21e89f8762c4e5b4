/**
 * The embedded PostgreSQL of `resc dev` (PGlite), kept in a data directory
 * so that restarts are fast (initdb runs once) and the user's rows survive.
 * A fresh directory gets the schema's DDL and the seed; an existing one is
 * checked against the schema instead (docs/decisions/0001-dev-database.md).
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";

/** Options of {@link openEmbedded}. */
export interface EmbeddedOptions {
  /** Data directory; created when absent. */
  dataDir: string;
  /** Delete the data directory first. */
  reset: boolean;
  /** DDL applied to a fresh directory. */
  ddl: string;
  /** Seed SQL file applied after the DDL on a fresh directory. */
  seedFile?: string;
  /** Progress messages. */
  log: (line: string) => void;
}

/** An open embedded database; `fresh` tells whether DDL and seed were just applied. */
export interface Embedded {
  executor: Executor;
  fresh: boolean;
}

/**
 * Opens (or creates) the embedded database.
 * @throws when the seed file cannot be read or the DDL/seed fails (the half-made directory is removed)
 */
export async function openEmbedded(o: EmbeddedOptions): Promise<Embedded> {
  if (o.reset) await rm(o.dataDir, { recursive: true, force: true });
  const fresh = !existsSync(o.dataDir);
  const seed = fresh && o.seedFile ? await readFile(o.seedFile, "utf8") : undefined;
  if (fresh) {
    await mkdir(o.dataDir, { recursive: true });
    o.log(`creating the embedded database in ${o.dataDir} (first start runs initdb; later starts are quick)`);
  }
  const db = new PGlite(o.dataDir);
  await db.waitReady;
  const executor = createPgliteExecutor(db);
  if (fresh) {
    try {
      await executor.script(o.ddl);
      if (seed !== undefined) await executor.script(seed);
    } catch (e) {
      await db.close().catch(() => {});
      await rm(o.dataDir, { recursive: true, force: true });
      throw e;
    }
  }
  return { executor, fresh };
}
