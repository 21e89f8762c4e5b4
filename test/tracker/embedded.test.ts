/**
 * `openEmbeddedDatabase` (runtime/exec/embedded.ts, decision 0703): DDL and
 * seed on first open, reuse afterwards, refusal when the DDL changed or the
 * directory is not a database, and `reset`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EmbeddedDatabaseError, openEmbeddedDatabase, SCHEMA_MARKER } from "../../runtime/exec/embedded.js";

const base = mkdtempSync(path.join(tmpdir(), "resc-embedded-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const DDL = `CREATE TABLE "notes" ("id" integer PRIMARY KEY, "body" text NOT NULL);`;
const SEED = `INSERT INTO "notes" VALUES (1, 'seeded');`;

async function bodies(dataDir: string, ddl = DDL, reset = false): Promise<{ fresh: boolean; rows: unknown[] }> {
  const { executor, fresh } = await openEmbeddedDatabase({ dataDir, ddl, seed: SEED, reset });
  try {
    const r = await executor.query({ text: `SELECT "body" FROM "notes" ORDER BY "id"`, values: [] });
    return { fresh, rows: r.rows.map((x) => x.body) };
  } finally {
    await executor.close();
  }
}

describe("openEmbeddedDatabase", () => {
  const dir = path.join(base, "db");

  it("creates the database with the DDL and the seed, and records the DDL's digest", async () => {
    const lines: string[] = [];
    const { executor, fresh } = await openEmbeddedDatabase({
      dataDir: dir,
      ddl: DDL,
      seed: SEED,
      log: (l) => lines.push(l),
    });
    expect(fresh).toBe(true);
    await executor.query({ text: `INSERT INTO "notes" VALUES (2, $1)`, values: ["kept"] });
    await executor.close();
    expect(lines[0]).toMatch(/^creating the embedded database in /);
    expect(readFileSync(path.join(dir, SCHEMA_MARKER), "utf8")).toMatch(/^[0-9a-f]{64}\n$/);
  });

  it("reuses the directory: rows survive, the seed is not applied again", async () => {
    expect(await bodies(dir)).toEqual({ fresh: false, rows: ["seeded", "kept"] });
  });

  it("refuses a directory made from different DDL, and reset recreates it", async () => {
    const changed = DDL.replace(`"body" text`, `"text" text`);
    await expect(bodies(dir, changed)).rejects.toThrow(/made from a different schema; .*reset/);
    await expect(bodies(dir, changed)).rejects.toBeInstanceOf(EmbeddedDatabaseError);
    const { executor, fresh } = await openEmbeddedDatabase({ dataDir: dir, ddl: changed, reset: true });
    expect(fresh).toBe(true);
    const r = await executor.query({ text: `SELECT count(*)::text AS n FROM "notes"`, values: [] });
    expect(r.rows).toEqual([{ n: "0" }]);
    await executor.close();
  });

  it("refuses a database whose creation did not finish (no digest)", async () => {
    rmSync(path.join(dir, SCHEMA_MARKER));
    await expect(bodies(dir)).rejects.toThrow(/was not finished/);
  });

  it("never uses or deletes a directory holding something else, even with reset", async () => {
    const other = path.join(base, "photos");
    mkdirSync(other);
    writeFileSync(path.join(other, "cat.jpg"), "meow");
    await expect(bodies(other, DDL, true)).rejects.toThrow(/not empty and holds no database/);
    expect(existsSync(path.join(other, "cat.jpg"))).toBe(true);
  });

  it("uses an empty directory, and removes a half-made one when the seed fails", async () => {
    const empty = path.join(base, "empty");
    mkdirSync(empty);
    expect(await bodies(empty)).toEqual({ fresh: true, rows: ["seeded"] });
    const broken = path.join(base, "broken");
    await expect(
      openEmbeddedDatabase({ dataDir: broken, ddl: DDL, seed: "INSERT INTO nowhere VALUES (1);" }),
    ).rejects.toThrow();
    expect(existsSync(broken)).toBe(false);
  });
});
