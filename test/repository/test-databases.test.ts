/**
 * Test databases never outlive their run: a test file whose
 * setup throws after creating its database still gets it dropped, by the
 * global teardown that removes everything carrying the run's prefix; and
 * `RESC_TEST_DB_PREFIX` sets that prefix.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { knownServer } from "../support/db.js";

const admin = await knownServer();
const VITEST = path.resolve("node_modules/vitest/vitest.mjs");

function vitestRun(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [VITEST, "run", "--config", "test/repository/fixtures/vitest.leak.config.ts"],
      { env: { ...process.env, ...env }, encoding: "utf8", timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

async function databasesStartingWith(prefix: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  try {
    const { rows } = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE starts_with(datname, $1)",
      [prefix],
    );
    return rows.map((r) => r.datname);
  } finally {
    await c.end();
  }
}

describe.skipIf(!admin || process.env.RESC_TEST_PGLITE === "1")("test databases", () => {
  it("are dropped when a file's setup fails, under the prefix RESC_TEST_DB_PREFIX sets", async () => {
    const runId = `leak${Date.now().toString(36)}`;
    const r = await vitestRun({ RESC_TEST_DB_PREFIX: "resc_leakcheck_", RESC_TEST_RUN_ID: runId });
    expect(r.code, r.output).not.toBe(0);
    expect(r.output).toContain("setup fails on purpose");
    expect(r.output).toMatch(/dropped 1 database\(s\) a failed test setup left behind: resc_leakcheck_leak/);
    expect(await databasesStartingWith(`resc_leakcheck_${runId}_`)).toEqual([]);
  });
});
