/**
 * vitest global setup: gives the run an id that every test database's name
 * carries (`test/support/db.ts`, `runPrefix()`), and after the run drops
 * every database with that prefix, so a test file whose setup failed
 * before it could register its own cleanup leaves nothing behind
 * (issue #10 §1).
 */
import { randomBytes } from "node:crypto";
import { dropDatabasesWithPrefix, knownServer, runPrefix } from "./db.js";

/** Sets `RESC_TEST_RUN_ID` for the workers (they inherit the environment). */
export function setup(): void {
  process.env.RESC_TEST_RUN_ID ??= `r${randomBytes(3).toString("hex")}`;
  runPrefix(); // refuses a malformed RESC_TEST_DB_PREFIX before any worker starts
}

/** Drops what this run left behind on the server it used. */
export async function teardown(): Promise<void> {
  if (process.env.RESC_TEST_PGLITE === "1") return;
  const admin = await knownServer();
  if (!admin) return;
  const left = await dropDatabasesWithPrefix(admin, runPrefix());
  if (left.length > 0)
    console.warn(`dropped ${left.length} database(s) a failed test setup left behind: ${left.join(", ")}`);
}
