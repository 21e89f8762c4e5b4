/**
 * `resc pull` on databases nobody here wrote (docs/decisions/1256-pull-hides-secrets.md, 1200):
 * Chinook, Northwind and AdventureWorks' five schemas each pull to a file
 * that compiles, hides every credential-like column, and (Chinook and
 * Northwind) passes the drift gate against the database it came from.
 */
import { afterAll, describe, expect, it } from "vitest";
import { introspect } from "../../cli/pull/introspect.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { driftSteps } from "../../cli/migrate/compare.js";
import { compileSource } from "../../compiler/index.js";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { loadSample, SAMPLE_SCHEMAS, type Sample } from "../support/samples.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});

/** Columns a served table shows whose names look like a credential. */
const CREDENTIAL = /pass(word|wd)|secret|token|salt|credential|api_?key|hmac|private_?key|otp|session|cookie|hash/i;

describe.skipIf(!server).each(["chinook", "northwind", "adventureworks"] as Sample[])("resc pull of %s", (sample) => {
  let db: TestDatabase;
  it("loads", async () => {
    db = await createTestDatabase(`pull_${sample}`);
    databases.push(db);
    await loadSample(db.url!, sample);
  });

  it.each(SAMPLE_SCHEMAS[sample])(
    "schema %s: pulls to a file that compiles, serving no credential-like column",
    async (schema) => {
      const { catalog, extras } = await introspect(db.url!, schema);
      expect(catalog.tables.length).toBeGreaterThan(0);
      const pulled = pulledFile(catalog, { ...extras, schema }, `${sample}.resource`);
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
      if (sample !== "adventureworks") {
        // The drift gate passes on the database right after pulling it.
        expect((await driftSteps(db.executor, compiled.schema)).map((s) => s.sql)).toEqual([]);
      }
    },
  );
});
