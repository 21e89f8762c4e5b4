/**
 * DDL that applies, for every type and every kind of default the language
 * accepts (docs/decisions/1250-sequences.md): `fixtures/migrate/every-type`
 * holds all the built-in types, the three serial types, identity columns,
 * enums, a domain, a citext column, literal, enum, function and SQL
 * defaults, and sequences named only in `nextval(…)` defaults (qualified
 * and not). Its first migration (`migrate diff`) is deployed to an empty
 * PostgreSQL with the real commands and then `check --database-url` finds
 * no drift; the same migration and `resc sql`'s script apply to an empty
 * PGlite, which then matches too. Pagila's own fixture, whose keys draw on
 * sequences its DDL must create, applies to both as well.
 */
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitSql } from "../../compiler/backends/sql/index.js";
import { driftSteps } from "../../catalog/index.js";
import { pendingSteps } from "../../cli/migrate/pending.js";
import { migrationText } from "../../cli/migrate/files.js";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import { pgliteExtensions } from "../../runtime/exec/pglite-extensions.js";
import type { Schema } from "../../language/ir.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { runNode } from "../support/run.js";
import { compileFile, compileText } from "../support/service.js";

const FIXTURE = path.resolve("fixtures/migrate/every-type/schema.resource");
const PAGILA = path.resolve("fixtures/pagila/pagila.resource");

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-every-type-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const resc = (args: string[]) => runNode([path.resolve("bin/resc.js"), ...args], { cwd: dir, timeout: 120_000 });

async function withPglite(fn: (db: Executor) => Promise<void>): Promise<void> {
  const db = createPgliteExecutor(new PGlite({ extensions: await pgliteExtensions() }));
  try {
    await fn(db);
  } finally {
    await db.close();
  }
}

/** Applies `script` to an empty PGlite (and an empty test database, unless told not to): each then matches `schema`. */
async function expectAppliesAndMatches(script: string, schema: Schema, o: { server?: boolean } = {}): Promise<void> {
  const check = async (db: Executor): Promise<void> => {
    await db.script(script);
    expect((await driftSteps(db, schema)).map((s) => s.sql)).toEqual([]);
  };
  await withPglite(check);
  if (o.server === false) return;
  const server = await createTestDatabase("every_type_apply");
  try {
    await check(server.executor);
  } finally {
    await server.drop();
  }
}

/** The first migration of `file`, as `migrate diff` writes it. */
async function firstMigration(file: string): Promise<string> {
  const { schema } = await compileFile(file);
  const { steps } = await pendingSteps(schema, path.join(dir, "none"));
  return migrationText(path.basename(file), steps);
}

describe("every type and default", () => {
  it("the schema declares every built-in type, serials, identity and nextval defaults", async () => {
    const text = await readFile(FIXTURE, "utf8");
    for (const word of ["smallserial", "bigserial", " serial", "@default(identity)", "nextval('public.", "citext"])
      expect(text).toContain(word);
    const ddl = emitSql((await compileFile(FIXTURE)).schema);
    // A sequence named qualified and unqualified is created once.
    expect(ddl.match(/CREATE SEQUENCE/g)).toHaveLength(2);
  });

  let db: TestDatabase | undefined;
  afterAll(async () => {
    await db?.drop();
  });

  it("migrate diff -> migrate deploy on an empty PostgreSQL, then check --database-url finds no drift", async () => {
    db = await createTestDatabase("every_type");
    if (db.kind !== "pg") return expect(db.kind).toBe("pglite"); // no server here: the PGlite cases below still run
    await rm(path.join(dir, "migrations"), { recursive: true, force: true });
    await copyFile(FIXTURE, path.join(dir, "schema.resource"));
    const diff = await resc(["migrate", "diff", "schema.resource", "--name", "init"]);
    expect(diff.code, diff.stderr).toBe(0);
    const deploy = await resc(["migrate", "deploy", db.url!, "--dir", "migrations"]);
    expect(deploy.code, deploy.stderr).toBe(0);
    const check = await resc(["check", "schema.resource", "--database-url", db.url!]);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain("the database matches the schema");
    const row = await db.executor.query({
      text: `INSERT INTO numbers DEFAULT VALUES RETURNING id::text, serial4::text, ticket::text`,
      values: [],
    });
    expect(row.rows[0]).toEqual({ id: "1", serial4: "1", ticket: "1" });
  });

  it("the first migration applies to an empty PGlite, which then matches the schema", async () => {
    const { schema } = await compileFile(FIXTURE);
    await expectAppliesAndMatches(await firstMigration(FIXTURE), schema, { server: false });
  });

  it("resc sql's script applies to an empty PostgreSQL and PGlite, and matches the migration's result", async () => {
    const { schema } = await compileFile(FIXTURE);
    await expectAppliesAndMatches(emitSql(schema), schema);
  });

  it("Pagila's fixture: resc sql and its first migration apply to empty databases", async () => {
    const { schema } = await compileFile(PAGILA);
    const ddl = emitSql(schema);
    expect(ddl).toContain(`CREATE SEQUENCE "public"."film_film_id_seq";`);
    for (const script of [ddl, await firstMigration(PAGILA)]) await expectAppliesAndMatches(script, schema);
  });

  it("a reference to a column unique only through a unique index is added after that index", async () => {
    const { schema } = compileText(
      `table countries {
  id   integer @primary_key
  code text
  @@index([code], unique: true)
  resource "/countries" { ops = [reads] }
}

table cities {
  id           integer @primary_key
  country_code text    @ref(country, countries, column: code)
  @@index([country_code])
  resource "/cities" { ops = [reads] }
}
`,
      "unique-index-target.resource",
    );
    const ddl = emitSql(schema);
    expect(ddl.indexOf('ADD FOREIGN KEY ("country_code")')).toBeGreaterThan(
      ddl.indexOf('CREATE UNIQUE INDEX "countries_code_idx"'),
    );
    await expectAppliesAndMatches(ddl, schema);
    await expectAppliesAndMatches(
      migrationText("x.resource", (await pendingSteps(schema, path.join(dir, "none"))).steps),
      schema,
    );
  });
});
