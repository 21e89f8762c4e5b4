/**
 * `--scratch-database-url` (docs/decisions/1260-scratch-database-snapshot.md):
 * the drift gate and a baseline compare in a database resc creates on that
 * server, and drop it whatever happens: after a pass, a failed schema and a
 * baseline, no `resc_scratch_*` database is left.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { runNode } from "../support/run.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
let db: TestDatabase | undefined;
let dir = "";

const SCHEMA = `
table note {
  id   serial @primary_key
  body text?

  resource "/notes" { ops = [reads] }
}
`;

beforeAll(async () => {
  if (!server) return;
  db = await createTestDatabase("scratch_server");
  await db.executor.script(
    "CREATE TABLE note (id serial PRIMARY KEY, body text); INSERT INTO note (body) VALUES ('a');",
  );
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-scratch-"));
  await writeFile(path.join(dir, "schema.resource"), SCHEMA);
  await writeFile(path.join(dir, "broken.resource"), "table note { id serial @primary_key @nope }");
});
afterAll(async () => {
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The scratch databases left on the server. */
async function leftOver(): Promise<string[]> {
  const r = await db!.executor.query({
    text: "SELECT datname AS n FROM pg_database WHERE datname LIKE 'resc\\_scratch\\_%' ORDER BY 1",
    values: [],
  });
  return r.rows.map((x) => x.n!);
}

const resc = (args: string[]) => runNode([path.resolve("bin/resc.js"), ...args], { cwd: dir, timeout: 120_000 });

describe.skipIf(!server)("a scratch database on a server", () => {
  it("serves the drift gate and a baseline, and is dropped every time", async () => {
    const before = await leftOver();
    const scratch = ["--scratch-database-url", db!.url!];
    const pass = await resc(["check", "schema.resource", "--database-url", db!.url!, ...scratch]);
    expect(pass.code, pass.stderr).toBe(0);
    expect(pass.stdout).toMatch(/the database matches the schema/);
    const broken = await resc(["check", "broken.resource", "--database-url", db!.url!, ...scratch]);
    expect(broken.code).not.toBe(0);
    await db!.executor.script("ALTER TABLE note ADD COLUMN extra integer");
    const drift = await resc(["check", "schema.resource", "--database-url", db!.url!, ...scratch]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/DROP COLUMN "extra"/);
    await db!.executor.script("ALTER TABLE note DROP COLUMN extra");
    const baseline = await resc(["migrate", "baseline", "schema.resource", "--database-url", db!.url!, ...scratch]);
    expect(baseline.code, baseline.stderr).toBe(0);
    expect(baseline.stdout).toMatch(/recorded it as applied/);
    expect(await leftOver()).toEqual(before);
  });

  it("says so when it cannot create one, and leaves nothing", async () => {
    const r = await resc([
      "check",
      "schema.resource",
      "--database-url",
      db!.url!,
      "--scratch-database-url",
      "postgres://postgres@127.0.0.1:1/none",
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/cannot create a scratch database with --scratch-database-url/);
  });
});
