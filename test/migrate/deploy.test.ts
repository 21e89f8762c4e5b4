/**
 * `resc migrate deploy` and `status` against a real PostgreSQL, and the
 * commands end to end (docs/decisions/1240-migrations.md):
 * pending migrations applied in order, once, each in its own transaction;
 * an edited applied migration refused; two deploys at once apply each
 * migration once; `migrate diff` refuses destructive steps unless told;
 * `check --database-url` fails on drift.
 */
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMigrations } from "../../cli/migrate/files.js";
import { deployMigrations, migrationStatus } from "../../cli/migrate/history.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { runNode } from "../support/run.js";

const db: TestDatabase = await createTestDatabase("deploy");
let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-deploy-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await db.drop();
});

const resc = (args: string[]) => runNode([path.resolve("bin/resc.js"), ...args], { cwd: dir, timeout: 120_000 });

describe.skipIf(db.kind !== "pg")("migrations end to end", () => {
  it("writes the first migration, then finds nothing to do", async () => {
    await cp("fixtures/migrate/evolve/before.resource", path.join(dir, "schema.resource"));
    const first = await resc(["migrate", "diff", "schema.resource", "--name", "init"]);
    expect(first.code, first.stderr).toBe(0);
    expect(await readdir(path.join(dir, "migrations"))).toEqual(["0001_init.sql"]);
    const again = await resc(["migrate", "diff", "schema.resource"]);
    expect(again.stdout).toContain("up to date");
  });

  it("deploys, reports the status, and deploys nothing twice", async () => {
    const files = await readMigrations(path.join(dir, "migrations"));
    expect((await migrationStatus(db.url!, files)).pending).toEqual(["0001_init.sql"]);
    expect(await deployMigrations(db.url!, files)).toEqual(["0001_init.sql"]);
    expect(await deployMigrations(db.url!, files)).toEqual([]);
    const status = await resc(["migrate", "status", db.url!]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^applied {2}0001_init\.sql/m);
    await db.executor.script("INSERT INTO projects (title) VALUES ('kept')");
  });

  it("evolves the schema with rows present, and check --database-url follows", async () => {
    await cp("fixtures/migrate/evolve/after.resource", path.join(dir, "schema.resource"));
    const drift = await resc(["check", "schema.resource", "--database-url", db.url!]);
    expect(drift.code).toBe(1);
    expect(drift.stderr).toMatch(/ADD COLUMN "due_on" date/);
    const diff = await resc(["migrate", "diff", "schema.resource", "--name", "due dates"]);
    expect(diff.code, diff.stderr).toBe(0);
    const deploy = await resc(["migrate", "deploy", db.url!]);
    expect(deploy.code, deploy.stderr).toBe(0);
    expect(deploy.stdout).toContain("applied 0002_due_dates.sql");
    const clean = await resc(["check", "schema.resource", "--database-url", db.url!]);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain("the database matches the schema");
    const rows = await db.executor.query({ text: "SELECT title, archived::text FROM projects", values: [] });
    expect(rows.rows).toEqual([{ title: "kept", archived: "false" }]);
  });

  it("refuses a destructive step unless allowed, and marks it", async () => {
    const schema = (await readFile(path.join(dir, "schema.resource"), "utf8")).replace(/\n  due_on +date\?\n/, "\n");
    await writeFile(path.join(dir, "schema.resource"), schema);
    const refused = await resc(["migrate", "diff", "schema.resource", "--name", "drop due"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/drops column projects\.due_on/);
    expect(await readdir(path.join(dir, "migrations"))).toHaveLength(2);
    const allowed = await resc(["migrate", "diff", "schema.resource", "--name", "drop due", "--allow-data-loss"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    const text = await readFile(path.join(dir, "migrations", "0003_drop_due.sql"), "utf8");
    expect(text).toMatch(
      /-- resc: DESTRUCTIVE: drops column projects\.due_on[^\n]*\nALTER TABLE "projects" DROP COLUMN "due_on";/,
    );
  });

  it("status and deploy name a pending destructive step before it runs", async () => {
    const status = await resc(["migrate", "status", db.url!]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`migrations in ${path.join(dir, "migrations")}`);
    expect(status.stdout).toMatch(
      /^pending {2}0003_drop_due\.sql {2}\(1 destructive\)\n\s+DESTRUCTIVE: drops column projects\.due_on/m,
    );
    // A deploy from elsewhere without --dir names the directory it looked in, and applies nothing.
    const elsewhere = await mkdtemp(path.join(os.tmpdir(), "resc-elsewhere-"));
    const lost = await runNode([path.resolve("bin/resc.js"), "migrate", "deploy", db.url!], { cwd: elsewhere });
    await rm(elsewhere, { recursive: true, force: true });
    expect(lost.code).toBe(1);
    expect(lost.stderr).toContain(`no migrations directory at ${path.join(elsewhere, "migrations")}`);
  });

  it("applies each migration once when two deploys start together", async () => {
    const files = await readMigrations(path.join(dir, "migrations"));
    const [a, b] = await Promise.all([deployMigrations(db.url!, files), deployMigrations(db.url!, files)]);
    expect([...a, ...b]).toEqual(["0003_drop_due.sql"]);
    const history = await db.executor.query({ text: "SELECT name FROM resc_migrations ORDER BY name", values: [] });
    expect(history.rows.map((r) => r.name)).toEqual(["0001_init.sql", "0002_due_dates.sql", "0003_drop_due.sql"]);
  });

  it("refuses to deploy when an applied migration was edited, and status says which", async () => {
    const file = path.join(dir, "migrations", "0002_due_dates.sql");
    await writeFile(file, (await readFile(file, "utf8")) + "\n-- an edit\n");
    const files = await readMigrations(path.join(dir, "migrations"));
    await expect(deployMigrations(db.url!, files)).rejects.toThrow(/were edited since: 0002_due_dates\.sql/);
    const status = await resc(["migrate", "status", db.url!]);
    expect(status.code).toBe(1);
    expect(status.stdout).toMatch(/0002_due_dates\.sql .*EDITED since/);
  });

  it("rolls back a migration that fails, keeping the ones before it", async () => {
    const other = await mkdtemp(path.join(dir, "bad-"));
    await writeFile(path.join(other, "0001_ok.sql"), "CREATE TABLE good (id int);\n");
    await writeFile(path.join(other, "0002_bad.sql"), "CREATE TABLE half (id int);\nSELECT no_such_function();\n");
    const fresh = await createTestDatabase("deploy_bad");
    try {
      await expect(deployMigrations(fresh.url!, await readMigrations(other))).rejects.toThrow(
        /0002_bad\.sql failed and was rolled back/,
      );
      const t = await fresh.executor.query({
        text: "SELECT to_regclass('good')::text AS g, to_regclass('half')::text AS h",
        values: [],
      });
      expect(t.rows[0]).toEqual({ g: "good", h: null });
    } finally {
      await fresh.drop();
    }
  });
});
