/**
 * What the adoption tests check of a database and of the service `resc dev`
 * makes of its pulled file (docs/lifecycle.md, "Adopting an existing
 * database"): the rows each table holds, and the rows each served table
 * answers with `?count=exact`, each read back by its key.
 */
import { spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { compileSource } from "../../compiler/index.js";
import { encodeArray } from "../../runtime/sql/bind.js";
import type { TestDatabase } from "./db.js";
import { freePort } from "./ports.js";
import { OWN_TABLE_NAMES } from "../../runtime/own-objects.js";

/** Row counts of every table of `schemas` but resc's own (a partitioned table counted whole, its partitions not), by `schema.table`. */
export async function tableCounts(db: TestDatabase, schemas: readonly string[]): Promise<Record<string, number>> {
  const tables = await db.executor.query({
    text: `SELECT n.nspname AS s, c.relname AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = ANY($1::text[]) AND relkind IN ('r', 'p') AND NOT relispartition
             AND relname <> ALL($2::text[]) ORDER BY 1, 2`,
    values: [encodeArray(schemas), encodeArray(OWN_TABLE_NAMES)],
  });
  const out: Record<string, number> = {};
  for (const { s, t } of tables.rows)
    out[`${s}.${t}`] = Number(
      (await db.executor.query({ text: `SELECT count(*)::text AS n FROM "${s}"."${t}"`, values: [] })).rows[0]!.n,
    );
  return out;
}

/**
 * Starts `resc dev FILE --database-url URL` in `dir`, asks every served table for its row count
 * (`?count=exact`) and reads its first row by key, then stops it.
 * @returns `schema.table` (its database name) → the count the service answered
 */
export async function servedCounts(dir: string, url: string, file: string): Promise<Record<string, number>> {
  const schema = compileSource(await readFile(path.join(dir, file), "utf8"), file).schema;
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.resolve("bin/resc.js"), "dev", file, "--database-url", url, "--port", String(port)],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`resc dev did not start: ${out}`)), 60_000);
      child.stdout!.on("data", () => {
        if (out.includes("serving")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}: ${out}`)));
    });
    const counts: Record<string, number> = {};
    for (const t of schema.tables) {
      if (!t.resource) continue;
      const list = await fetch(`http://127.0.0.1:${port}${t.resource.path}?count=exact&per_page=1`);
      const body = (await list.json()) as { items: Record<string, unknown>[]; total: number };
      expect(list.status, `${t.resource.path}: ${JSON.stringify(body)}`).toBe(200);
      counts[`${t.schema ?? "public"}.${t.dbName ?? t.name}`] = body.total;
      const first = body.items[0];
      if (first !== undefined && t.primaryKey.length === 1 && t.resource.ops.includes("read")) {
        const id = encodeURIComponent(String(first[t.primaryKey[0]!]));
        const read = await fetch(`http://127.0.0.1:${port}${t.resource.path}/${id}`);
        expect(read.status, `${t.resource.path}/${id}`).toBe(200);
        expect(await read.json()).toEqual(first);
      }
    }
    return counts;
  } finally {
    child.kill("SIGTERM");
  }
}
