/**
 * `resc pull` on databases nobody here wrote (docs/decisions/1256-pull-hides-secrets.md, 1257, 1200):
 * Chinook, Northwind and AdventureWorks (five schemas, quoted domains) each
 * pull, schema by schema and whole into one file, to a file that compiles,
 * hides every credential-like column and passes the drift gate against the
 * database it came from; `resc dev` serves every table of it with exact
 * row counts; baselined, an edit migrates keeping every row; and `resc sql`
 * of the file pulls back to the same file.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { driftSteps, introspect } from "../../catalog/index.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { compileSource, emitSql } from "../../compiler/index.js";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { declarations } from "../support/pulled.js";
import { runNode } from "../support/run.js";
import { loadSample, SAMPLE_SCHEMAS, type Sample } from "../support/samples.js";
import { servedCounts, tableCounts } from "../support/adopt.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});

const resc = (args: string[], cwd: string) =>
  runNode([path.resolve("bin/resc.js"), ...args], { cwd, timeout: 180_000 });

/** What `resc pull` is told to read of a sample: its one schema, or every schema. */
const pullScope = (sample: Sample): string[] => (SAMPLE_SCHEMAS[sample].length > 1 ? ["--all-schemas"] : []);

/** Columns a served table shows whose names look like a credential. */
const CREDENTIAL = /pass(word|wd)|secret|token|salt|credential|api_?key|hmac|private_?key|otp|session|cookie|hash/i;

describe.skipIf(!server).each(["chinook", "northwind", "adventureworks"] as Sample[])("resc pull of %s", (sample) => {
  let db: TestDatabase;
  it("loads: every schema it declares holds tables", async () => {
    db = await createTestDatabase(`pull_${sample}`);
    databases.push(db);
    await loadSample(db.url!, sample);
    for (const schema of SAMPLE_SCHEMAS[sample]) {
      const r = await db.executor.query({
        text: "SELECT count(*)::text AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind IN ('r', 'p')",
        values: [schema],
      });
      expect(Number(r.rows[0]!.n), schema).toBeGreaterThan(0);
    }
  });

  it.each(SAMPLE_SCHEMAS[sample])(
    "schema %s: pulls to a file that compiles, serving no credential-like column",
    async (schema) => {
      const { catalog, extras } = await introspect(db.url!, [schema]);
      expect(catalog.tables.length).toBeGreaterThan(0);
      const pulled = pulledFile(catalog, extras, `${sample}.resource`);
      if (!pulled.ok) throw new Error(pulled.diagnostics.map((d) => d.message).join("\n"));
      const compiled = compileSource(pulled.text, `${sample}.resource`);
      expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const service = buildDescriptor(compiled.schema);
      const served = service.tables
        .filter((t) => t.resource)
        .flatMap((t) => t.columns.filter((c) => !c.hidden).map((c) => `${t.name}.${c.name}`));
      expect(served.length).toBeGreaterThan(0);
      expect(served.filter((c) => CREDENTIAL.test(c.split(".")[1]!))).toEqual([]);
      // Each hidden column says why, so a person can expose it on purpose.
      const hidden = pulled.text.split("\n").filter((l) => !l.trim().startsWith("//") && l.includes("@hidden")).length;
      const said = pulled.text.match(/\/\/ (hidden by resc pull|a soft delete)/g)?.length ?? 0;
      expect(said).toBe(hidden);
      // The drift gate passes on the database right after pulling it, a schema at a time.
      expect((await driftSteps(db.executor, compiled.schema)).map((s) => s.sql)).toEqual([]);
    },
  );

  it("pulls whole; resc dev serves every table with its exact row count; baselines, then migrates an edit keeping every row; resc sql of the pulled file pulls back to the same file", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `resc-baseline-${sample}-`));
    try {
      const pull = await resc(["pull", db.url!, ...pullScope(sample), "--out", "schema.resource"], dir);
      expect(pull.code, pull.stderr).toBe(0);
      const counts = await tableCounts(db, SAMPLE_SCHEMAS[sample]);
      const check = await resc(["check", "schema.resource"], dir);
      expect(check.code, check.stderr).toBe(0);
      const pulledText = await readFile(path.join(dir, "schema.resource"), "utf8");
      const served = await servedCounts(dir, db.url!, "schema.resource");
      // Every table with a key is served, each with the count the database has.
      const keyed = Object.keys(served);
      expect(keyed.length).toBeGreaterThan(0);
      for (const t of keyed) expect(served[t], t).toBe(counts[t]);
      const notServed = pulledText.match(/\/\/ not served: /g)?.length ?? 0;
      expect(keyed.length + notServed).toBe(Object.keys(counts).length);
      // A plain deploy of a first migration over the populated database is refused: it says to baseline.
      const first = await resc(["migrate", "diff", "schema.resource", "--name", "init"], dir);
      expect(first.code, first.stderr).toBe(0);
      const refused = await resc(["migrate", "deploy", db.url!], dir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/no migration history: .*Baseline it first/);
      await rm(path.join(dir, "migrations"), { recursive: true });
      const baseline = await resc(["migrate", "baseline", "schema.resource", "--database-url", db.url!], dir);
      expect(baseline.code, baseline.stderr).toBe(0);
      expect((await resc(["migrate", "deploy", db.url!], dir)).stdout).toMatch(/up to date/);
      // An edit: a new nullable column on the first table, migrated with its rows kept.
      const text = await readFile(path.join(dir, "schema.resource"), "utf8");
      const edited = text.replace(/^(table \w+ \{\n)/m, "$1  resc_note text?\n");
      expect(edited).not.toBe(text);
      await writeFile(path.join(dir, "schema.resource"), edited);
      const diff = await resc(["migrate", "diff", "schema.resource", "--name", "note"], dir);
      expect(diff.code, diff.stderr).toBe(0);
      const deploy = await resc(["migrate", "deploy", db.url!], dir);
      expect(deploy.code, deploy.stderr).toBe(0);
      expect(deploy.stdout).toContain("applied 0002_note.sql");
      expect(await tableCounts(db, SAMPLE_SCHEMAS[sample])).toEqual(counts);
      const gate = await resc(["check", "schema.resource", "--database-url", db.url!], dir);
      expect(gate.code, gate.stderr).toBe(0);
      // resc sql of the pulled file builds an empty database that pulls back to the same declarations.
      const empty = await createTestDatabase(`pull_${sample}_again`);
      databases.push(empty);
      await empty.executor.script(emitSql(compileSource(text, "schema.resource").schema));
      const again = await introspect(empty.url!, SAMPLE_SCHEMAS[sample].length > 1 ? "all" : ["public"]);
      const back = pulledFile(again.catalog, again.extras, "schema.resource");
      expect(back.ok && declarations(back.text)).toBe(declarations(text));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
