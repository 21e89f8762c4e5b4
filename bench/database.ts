/**
 * The benchmark's database: a fresh database on the local PostgreSQL server
 * (or on the server `DATABASE_URL` names), loaded with the shipped Pagila
 * dump plus the one GIN index the Pagila fixture declares. Reuses the test
 * support code, so the bench serves exactly the data the Pagila tests read.
 */
import pg from "pg";
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

/**
 * Inserts `count` rentals not yet returned for each label (dated after
 * every rental already there, so they never meet another's unique key,
 * even in a database an earlier run prepared) and gives each
 * label's first and last rental id: every measured `return` then acts on a
 * row no earlier request touched.
 */
export async function prepareOpenRentals(
  url: string,
  labels: readonly string[],
  count: number,
): Promise<Record<string, [number, number]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, [number, number]> = {};
    for (const label of labels) {
      const r = await client.query<{ lo: string; hi: string }>(
        `WITH made AS (
           INSERT INTO rental (rental_date, inventory_id, customer_id, staff_id)
           SELECT greatest(timestamptz '2031-01-01', (SELECT max(rental_date) FROM rental)) + make_interval(days => 1, secs => g),
                  1 + g % 4500, 1 + g % 590, 1
           FROM generate_series(1, $1::int) AS g
           RETURNING rental_id)
         SELECT min(rental_id)::text AS lo, max(rental_id)::text AS hi FROM made`,
        [count],
      );
      const lo = Number(r.rows[0]!.lo);
      const hi = Number(r.rows[0]!.hi);
      // Identity values of one statement are consecutive here (nothing else inserts meanwhile).
      if (hi - lo + 1 !== count) throw new Error(`${label}: the prepared rental ids are not consecutive`);
      out[label] = [lo, hi];
    }
    return out;
  } finally {
    await client.end();
  }
}
