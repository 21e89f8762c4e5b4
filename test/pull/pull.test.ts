/**
 * `resc pull` (docs/decisions/1200-pull.md): Pagila as it
 * ships is described by a file that checks and that the dev schema check
 * accepts against the same database; for Pagila and every fixture whose
 * DDL applies to an empty database, pulling, applying `resc sql` of the
 * pulled file to an empty database and pulling again gives the same
 * declarations; what cannot be described is left out with a comment and
 * reported; secret-looking columns are hidden; resc's own tables, triggers
 * and function are neither served nor named (docs/decisions/1357-resc-own-objects.md).
 */
import { execFileSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { afterAll, describe, expect, it } from "vitest";
import { driftSteps, findSchemaMismatches, introspect, renderCatalog } from "../../catalog/index.js";
import { compileSource, emitSql } from "../../compiler/index.js";
import { formatSource } from "../../grammar/format/index.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { loadPagila } from "../support/pagila.js";
import { declarations } from "../support/pulled.js";
import { runNode } from "../support/run.js";
import { WEBHOOK_DDL } from "../../runtime/events/webhooks.js";
import { IDEMPOTENCY_TABLE_DDL } from "../../runtime/idempotency-store.js";
import { SECRETS_TABLE_DDL } from "../../runtime/secrets.js";
import { HISTORY_TABLE_DDL } from "../../cli/migrate/history.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
});

async function fresh(label: string): Promise<TestDatabase> {
  const d = await createTestDatabase(label);
  databases.push(d);
  return d;
}

/** What `resc pull` writes for the database at `url`, and what it left out. */
async function pull(url: string): Promise<{ text: string; leftOut: string[] }> {
  const { catalog, extras } = await introspect(url, ["public"]);
  const r = renderCatalog(catalog, extras);
  const f = formatSource(r.text, "pulled.resource");
  if (!f.ok) throw new Error(`pulled text does not parse:\n${r.text}`);
  return { text: f.text, leftOut: r.leftOut };
}

/** Pulls `url`, applies `resc sql` of the result to an empty database, pulls that, and expects the same declarations. */
async function expectFixpoint(url: string, label: string): Promise<string> {
  const first = await pull(url);
  const compiled = compileSource(first.text, "pulled.resource");
  expect(
    compiled.diagnostics.filter((d) => d.severity === "error").map((d) => d.message),
    first.text,
  ).toEqual([]);
  const again = await fresh(`${label}_again`);
  await again.executor.script(emitSql(compiled.schema));
  const second = await pull(again.url!);
  expect(declarations(second.text)).toBe(declarations(first.text));
  return first.text;
}

describe.skipIf(!server)("resc pull", () => {
  it("describes Pagila as it ships: the file checks, the dev schema check accepts it, and it is a fixpoint", async () => {
    const db = await fresh("pull_pagila");
    await loadPagila(db);
    const { text, leftOut } = await pull(db.url!);
    const compiled = compileSource(text, "pagila.resource");
    expect(compiled.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(await findSchemaMismatches(db.executor, compiled.schema)).toEqual([]);
    expect(text).toMatch(/enum mpaa_rating \{ G PG "PG-13" R "NC-17" \}/);
    expect(text).toMatch(/domain year integer @check\("\(\(VALUE >= 1901\) AND \(VALUE <= 2155\)\)"\)/);
    expect(text).toMatch(/language_id +integer +@ref\(language, language\) @inverse\(film\) @filterable @sortable/);
    expect(text).toMatch(
      /original_language_id +integer\? +@ref\(original_language, language\) @inverse\(film_by_original_language\)/,
    );
    expect(text).toMatch(/@@primary_key\(\[payment_date, payment_id\]\)|@@primary_key\(\[payment_id, payment_date\]\)/);
    expect(text).toMatch(/@@index\(\[special_features\], using: gin|special_features +text\[\]\?/);
    // Pagila's keys draw on sequences they do not own: the nextval stays (docs/decisions/1250-sequences.md).
    expect(text).toMatch(
      /film_id +integer +@primary_key\s+@default\(sql\("nextval\('film_film_id_seq'::regclass\)"\)\)/,
    );
    expect(leftOut).toContain("view film_list: the language describes tables only");
    await expectFixpoint(db.url!, "pull_pagila");
  });

  const fixtures = execFileSync("git", ["ls-files", "*.resource"], { encoding: "utf8" })
    .split("\n")
    .filter((f) => f && !/^fixtures\/(parse-errors|validation)\//.test(f) && !f.startsWith("fixtures/pagila/"));

  it.each(fixtures)("is a fixpoint over %s", async (file) => {
    const compiled = compileSource(await readFile(file, "utf8"), file);
    expect(compiled.ok).toBe(true);
    const db = await fresh("pull_fixture");
    await db.executor.script(emitSql(compiled.schema));
    await expectFixpoint(db.url!, "pull_fixture");
  });

  it("keys a Prisma many-to-many table by its unique index: served by key, no PRIMARY KEY proposed (decision 1376)", async () => {
    const db = await fresh("pull_m2m");
    await db.executor.script(`
      CREATE TABLE "Post" (id serial PRIMARY KEY, title text NOT NULL);
      CREATE TABLE "Tag" (id serial PRIMARY KEY, name text NOT NULL);
      CREATE TABLE "_PostToTag" ("A" integer NOT NULL REFERENCES "Post"(id), "B" integer NOT NULL REFERENCES "Tag"(id));
      CREATE UNIQUE INDEX "_PostToTag_AB_unique" ON "_PostToTag"("A", "B");
      CREATE INDEX "_PostToTag_B_index" ON "_PostToTag"("B");
      CREATE TABLE loose (a integer, b integer);
      CREATE UNIQUE INDEX loose_ab ON loose (a, b);
      INSERT INTO "Post" (title) VALUES ('p'); INSERT INTO "Tag" (name) VALUES ('t');
      INSERT INTO "_PostToTag" VALUES (1, 1);
    `);
    const { text, leftOut } = await pull(db.url!);
    expect(text).toMatch(/@@primary_key\(\[a, b\], index: "_PostToTag_AB_unique"\)/);
    // The key's index is written once, by its @@primary_key, not again as an @@index.
    expect(text.match(/_PostToTag_AB_unique/g)).toHaveLength(1);
    expect(text).toMatch(/@@index\(\[b\], name: "_PostToTag_B_index"\)/);
    // Nullable columns cannot key a row: that table stays unserved.
    expect(leftOut).toContain("resource for table loose: it has no primary key");
    const compiled = compileSource(text, "pulled.resource");
    expect(compiled.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
    const m2m = compiled.schema.tables.find((t) => t.dbName === "_PostToTag")!;
    expect(m2m.primaryKey).toEqual(["a", "b"]);
    expect(m2m.resource?.ops).toEqual(expect.arrayContaining(["list", "read"]));
    // The drift gate sees the database as the file says it: no ALTER TABLE … ADD PRIMARY KEY, nothing at all.
    expect(await findSchemaMismatches(db.executor, compiled.schema)).toEqual([]);
    expect((await driftSteps(db.executor, compiled.schema)).map((s) => s.sql)).toEqual([]);
    await expectFixpoint(db.url!, "pull_m2m");
  });

  it("hides secret-looking columns, and leaves out and reports what it cannot say", async () => {
    const db = await fresh("pull_odd");
    await db.executor.script(`
      CREATE TABLE accounts (id bigint PRIMARY KEY, email text UNIQUE, password_hash text NOT NULL, api_token text,
                             during int4range, total int GENERATED ALWAYS AS (id * 2) STORED);
      CREATE INDEX accounts_lower_email ON accounts (lower(email));
      CREATE VIEW account_emails AS SELECT email FROM accounts;
    `);
    const { text, leftOut } = await pull(db.url!);
    expect(text).toMatch(/password_hash +text +@hidden/);
    expect(text).toMatch(/api_token +text\? +@hidden/);
    expect(text).toMatch(/email +text\? +@unique @filterable @sortable/);
    expect(leftOut).toEqual(
      expect.arrayContaining([
        "view account_emails: the language describes tables only",
        "column accounts.during: its type int4range has no spelling in the language",
        "column accounts.total: a generated column; the language cannot declare one (it stays in the database)",
        "index accounts.accounts_lower_email: it indexes an expression",
      ]),
    );
    expect(text).toMatch(/\/\/ left out: column during \(int4range\)/);
  });

  it("runs as a command, writing the file and reporting on stderr", async () => {
    const db = await fresh("pull_cli");
    await db.executor.script("CREATE TABLE t (id int PRIMARY KEY); CREATE VIEW v AS SELECT 1 AS one;");
    const r = await runNode(["bin/resc.js", "pull", db.url!], { timeout: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^table t \{/m);
    expect(r.stderr).toContain("left out: view v");
  });

  it("neither serves nor names resc's own tables, capture triggers and function once webhooks have run", async () => {
    const db = await fresh("pull_own");
    const schema = compileSource(
      `table visits {\n  id bigint @primary_key @default(identity)\n  at date\n\n` +
        `  resource "/visits" { ops = [crud, list], events = true }\n}\n`,
      "visits.resource",
    ).schema;
    await db.executor.script(emitSql(schema));
    // What a service with webhooks and idempotency keys and a deploy leave behind, with a row each; the same again
    // where a connection whose search path starts elsewhere (a schema named after its role) would put them.
    const own = [...WEBHOOK_DDL, IDEMPOTENCY_TABLE_DDL, SECRETS_TABLE_DDL, HISTORY_TABLE_DDL].join(";\n");
    await db.executor.script(
      `${own};\nINSERT INTO visits (at) VALUES ('2024-02-29');\n` +
        `INSERT INTO resc_webhook_cursors VALUES ('big', '1', 1);\n` +
        `CREATE SCHEMA app; SET search_path = app, public;\n${own};\nRESET search_path;`,
    );
    for (const schemas of [["public"], "all"] as const) {
      const { catalog, extras } = await introspect(db.url!, schemas);
      const r = renderCatalog(catalog, extras);
      expect(r.text, String(schemas)).not.toMatch(/resc_/);
      expect(r.leftOut, String(schemas)).toEqual([]);
      expect(r.text).toMatch(/resource "\/visits" \{ ops = \[reads\], events = true \}/);
      expect(extras.schemas).toEqual(["public"]);
    }
    const cli = await runNode(["bin/resc.js", "pull", db.url!, "--all-schemas"], { timeout: 60_000 });
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout + cli.stderr).not.toMatch(/resc_|left out/);
  });
});
