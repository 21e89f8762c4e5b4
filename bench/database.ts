/**
 * The benchmark's database: a fresh database on the local PostgreSQL server
 * (or on the server `DATABASE_URL` names), loaded with the shipped Pagila
 * dump plus the one GIN index the Pagila fixture declares. Reuses the test
 * support code, so the bench serves exactly the data the Pagila tests read.
 */
import { createTestDatabase } from "../test/support/db.js";
import { loadPagila } from "../test/support/pagila.js";
import { PAGILA_EXTRA_SQL } from "../test/pagila/setup.js";

/** A loaded Pagila database on a real server. */
export interface BenchDatabase {
  /** Connection string of the database (the servers connect with it). */
  url: string;
  /** Drops the database (with FORCE, so lingering connections do not block it). */
  drop(): Promise<void>;
}

/**
 * Creates and loads the database (about 10 s). Throws when no PostgreSQL
 * server is reachable: the embedded PGlite cannot be shared between the
 * server processes, so it is no use for the benchmark.
 */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const db = await createTestDatabase("bench");
  if (db.kind !== "pg" || db.url === undefined) {
    await db.drop();
    throw new Error("the benchmark needs a PostgreSQL server: set DATABASE_URL or run one at 127.0.0.1:5432");
  }
  try {
    await loadPagila(db, PAGILA_EXTRA_SQL);
  } catch (e) {
    await db.drop();
    throw e;
  }
  // The helper's own pool is not used by the bench; drop() still needs it closed first, which it does.
  return { url: db.url, drop: () => db.drop() };
}
