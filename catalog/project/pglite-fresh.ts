/**
 * A new in-memory PGlite, started from a snapshot of an empty data
 * directory rather than by running initdb. A fresh PGlite spends most of
 * its start (about 2.7 s of 3.3 s here) in initdb; loading the data
 * directory initdb made once takes about 1.5 s. The scratch database of
 * `resc migrate baseline`, `resc check --database-url` and `migrate diff`
 * starts this way (docs/decisions/1260-scratch-database-snapshot.md).
 *
 * The snapshot is PGlite's own `dumpDataDir` of an instance nothing has
 * run on, kept in resc's cache directory (`$RESC_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/resc`, else `~/.cache/resc`) under PGlite's version, so
 * an upgrade of PGlite makes a new one. The first start makes it; a cache
 * that cannot be read or written only costs the speed.
 */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { pgliteExtensions } from "../../runtime/exec/pglite-extensions.js";

/** resc's cache directory. */
export function cacheDir(): string {
  return (
    process.env.RESC_CACHE_DIR ?? path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "resc")
  );
}

/** PGlite's version, read from its package; undefined when it cannot be found (then no snapshot is used). */
function pgliteVersion(): string | undefined {
  try {
    const entry = fileURLToPath(import.meta.resolve("@electric-sql/pglite"));
    const pkg = JSON.parse(readFileSync(path.join(path.dirname(entry), "..", "package.json"), "utf8")) as {
      version?: string;
    };
    return pkg.version;
  } catch {
    return undefined;
  }
}

/** Where the snapshot of PGlite `version`'s empty data directory is kept. */
function snapshotPath(version: string): string {
  return path.join(cacheDir(), `pglite-${version}-empty.tar.gz`);
}

/**
 * Starts an in-memory PGlite with every extension resc registers
 * (`pgliteExtensions`), from the cached snapshot when there is one, and
 * makes the snapshot when there is none (before anything runs on the new
 * instance, so it holds an empty database).
 * @returns the instance, ready
 * @throws PGlite's error when it cannot start at all
 */
export async function freshPGlite(): Promise<PGlite> {
  const { PGlite } = await import("@electric-sql/pglite");
  const extensions = await pgliteExtensions();
  const version = pgliteVersion();
  const file = version !== undefined ? snapshotPath(version) : undefined;
  const snapshot = file !== undefined ? await readFile(file).catch(() => undefined) : undefined;
  if (snapshot !== undefined) {
    try {
      const db = new PGlite({ extensions, loadDataDir: new Blob([snapshot]) });
      await db.waitReady;
      return db;
    } catch {
      // A damaged snapshot: start the slow way, and write a good one over it.
    }
  }
  const db = new PGlite({ extensions });
  await db.waitReady;
  if (file !== undefined) {
    try {
      const dump = Buffer.from(await (await db.dumpDataDir("gzip")).arrayBuffer());
      await mkdir(path.dirname(file), { recursive: true });
      // Written aside and renamed: a concurrent start reads a whole snapshot or none.
      const partial = `${file}.${process.pid}.tmp`;
      await writeFile(partial, dump);
      await rename(partial, file);
    } catch {
      // No cache: later starts run initdb as this one did.
    }
  }
  return db;
}
