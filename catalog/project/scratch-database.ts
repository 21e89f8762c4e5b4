/**
 * The database `migrate` and the drift gate compare in: an in-memory
 * PGlite by default (nothing touches a server), or, with
 * `--scratch-database-url URL`, a database resc creates on that server and
 * drops afterwards (Prisma's "shadow database"): no PGlite start, which is
 * most of a baseline's or a drift check's time, and the server's own
 * PostgreSQL spells the catalog (docs/decisions/1260-scratch-database-snapshot.md).
 */
import { randomBytes } from "node:crypto";
import process from "node:process";
import pg from "pg";
import type { Executor } from "../../runtime/exec/executor.js";

/** A scratch database, open; `close()` releases it (and drops it, on a server); a second `close()` does nothing. */
export interface ScratchDatabase {
  db: Executor;
  close(): Promise<void>;
}

/** `close` that runs once, however often it is called. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

/** An in-memory PGlite started from the snapshot of an empty data directory (`pglite-fresh.ts`). */
export async function embeddedScratch(): Promise<ScratchDatabase> {
  const { freshPGlite } = await import("./pglite-fresh.js");
  const { createPgliteExecutor } = await import("../../runtime/exec/pglite.js");
  const db = createPgliteExecutor(await freshPGlite());
  return { db, close: once(() => db.close()) };
}

/**
 * A new, empty database on the server at `url` (the role needs CREATEDB),
 * named `resc_scratch_<pid>_<random>`, dropped by `close()` even while a
 * connection lingers (`WITH (FORCE)`).
 * @throws Error saying the scratch database could not be created (the server unreachable, no CREATEDB)
 */
export async function serverScratch(url: string): Promise<ScratchDatabase> {
  const { createPgExecutor } = await import("../../runtime/exec/pg.js");
  const name = `resc_scratch_${process.pid}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  admin.on("error", () => {});
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0`);
  } catch (e) {
    throw new Error(`cannot create a scratch database with --scratch-database-url: ${(e as Error).message}`);
  } finally {
    await admin.end().catch(() => {});
  }
  const at = new URL(url);
  at.pathname = `/${name}`;
  const db = createPgExecutor({ connectionString: at.toString(), max: 1 });
  return {
    db,
    close: once(async () => {
      await db.close();
      const drop = new pg.Client({ connectionString: url });
      drop.on("error", () => {});
      await drop.connect();
      try {
        await drop.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await drop.end();
      }
    }),
  };
}

/**
 * The scratch database a command asked for: on the server at `url` when given, else embedded. Started at once,
 * so its start overlaps the command's other work; a start that fails is reported where it is awaited. The caller
 * closes it in a `finally` ({@link closeScratch}), so a server's scratch database is dropped whatever happens.
 */
export function startScratch(url: string | undefined): Promise<ScratchDatabase> {
  const started = url !== undefined ? serverScratch(url) : embeddedScratch();
  started.catch(() => {});
  return started;
}

/** Closes a scratch database that may not have started (then there is nothing to close). */
export async function closeScratch(scratch: Promise<ScratchDatabase> | undefined): Promise<void> {
  const s = await scratch?.catch(() => undefined);
  await s?.close();
}
