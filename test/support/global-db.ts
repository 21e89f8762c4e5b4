/**
 * vitest global setup: gives the run an id that every test database's name
 * carries (`test/support/db.ts`, `runPrefix()`), and after the run drops
 * every database with that prefix, so a test file whose setup failed
 * before it could register its own cleanup leaves nothing behind
 * (test/repository/test-databases.test.ts).
 */
import { randomBytes } from "node:crypto";
import { dropDatabasesWithPrefix, knownServer, PREPARED_BEHIND_PGBOUNCER, runPrefix } from "./db.js";
import { PGBOUNCER_TRACKING, startPgBouncer, type TestBouncer } from "./pgbouncer.js";

let bouncer: TestBouncer | undefined;

/**
 * Sets `RESC_TEST_RUN_ID` for the workers (they inherit the environment);
 * with `RESC_TEST_PGBOUNCER=1`, starts one PgBouncer in transaction mode in
 * front of the test server and gives the workers its port
 * (`RESC_TEST_PGBOUNCER_PORT`), so the suites' executors go through it;
 * with `RESC_TEST_PGBOUNCER=prepared`, a PgBouncer 1.21+ that keeps
 * prepared statements, and the executors prepare theirs (decision 1347).
 */
export async function setup(): Promise<void> {
  process.env.RESC_TEST_RUN_ID ??= `r${randomBytes(3).toString("hex")}`;
  runPrefix(); // refuses a malformed RESC_TEST_DB_PREFIX before any worker starts
  const mode = process.env.RESC_TEST_PGBOUNCER;
  if (mode === "1" || mode === "prepared") {
    const admin = await knownServer();
    if (!admin) throw new Error(`RESC_TEST_PGBOUNCER=${mode} needs a PostgreSQL server`);
    if (mode === "prepared" && !PGBOUNCER_TRACKING)
      throw new Error("RESC_TEST_PGBOUNCER=prepared needs PgBouncer 1.21+");
    bouncer = await startPgBouncer(
      admin,
      3,
      mode === "prepared" ? { binary: PGBOUNCER_TRACKING, maxPreparedStatements: PREPARED_BEHIND_PGBOUNCER } : {},
    );
    process.env.RESC_TEST_PGBOUNCER_PORT = new URL(bouncer.through(admin)).port;
  }
}

/** Drops what this run left behind on the server it used, and stops the PgBouncer it started. */
export async function teardown(): Promise<void> {
  await bouncer?.stop();
  if (process.env.RESC_TEST_PGLITE === "1") return;
  const admin = await knownServer();
  if (!admin) return;
  const left = await dropDatabasesWithPrefix(admin, runPrefix());
  if (left.length > 0)
    console.warn(`dropped ${left.length} database(s) a failed test setup left behind: ${left.join(", ")}`);
}
