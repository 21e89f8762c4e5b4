/**
 * A pulled database with soft-delete columns is served by `resc dev` with no hooks module
 * (docs/decisions/1369-pulled-soft-delete.md, docs/decisions/1367-access-rules.md). Which columns `resc pull`
 * marks `@soft_delete`, on one database with each case; then three databases other software made — Umami and
 * Hoppscotch from their Prisma migrations (`data/umami`, `data/hoppscotch`) and a Rails help desk
 * (`rails-soft-delete.sql` beside this file) — each loaded into a fresh database, pulled by the `resc pull`
 * command, and served by `resc dev --database-url` with no `--hooks`: it starts, every table answers, each
 * soft-delete table lists its live rows only, a marked row is a 404, and DELETE of a live row marks it (the
 * row stays in the table) and makes it a 404.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { introspect } from "../../catalog/index.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { compileSource } from "../../compiler/index.js";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { run, runNode } from "../support/run.js";
import { loadMigrations } from "../support/samples.js";
import { startResc, type ServeProcess } from "../support/serve-process.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const databases: TestDatabase[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const d of databases) await d.drop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function fresh(label: string): Promise<TestDatabase> {
  const d = await createTestDatabase(label);
  databases.push(d);
  return d;
}

/** `"name"`, an identifier as SQL writes it. */
const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The table's name in SQL, schema-qualified. */
const sqlName = (t: TableDescriptor): string => `${quote(t.schema ?? "public")}.${quote(t.dbName ?? t.name)}`;

/** The database name of column `name` of `t`. */
const dbColumn = (t: TableDescriptor, name: string): string => {
  const c = t.columns.find((x) => x.name === name)!;
  return c.dbName ?? c.name;
};

/** The compiled service of a pulled file, and its soft-delete tables as `table → marker column (database name)`. */
function softDeleteTables(text: string): { service: ServiceDescriptor; markers: Record<string, string> } {
  const compiled = compileSource(text, "schema.resource");
  expect(compiled.diagnostics.filter((d) => d.severity === "error").map((d) => d.message)).toEqual([]);
  const service = buildDescriptor(compiled.schema);
  const markers: Record<string, string> = {};
  for (const t of service.tables)
    if (t.softDeleteColumn !== undefined) markers[t.name] = dbColumn(t, t.softDeleteColumn);
  return { service, markers };
}

describe.skipIf(!server)("which columns resc pull marks @soft_delete", () => {
  it("marks a nullable timestamp named like a removal, and scopes the marks it cannot apply, leaving no table out", async () => {
    const db = await fresh("pull_soft_cases");
    await db.executor.script(`
      CREATE DOMAIN stamp AS timestamptz;
      CREATE TABLE paranoid (id bigserial PRIMARY KEY, deleted_at timestamp(6));
      CREATE TABLE prisma_style (id text PRIMARY KEY, "deletedAt" timestamptz(3));
      CREATE TABLE discarded (id serial PRIMARY KEY, archived_at timestamptz, discarded_at stamp);
      CREATE TABLE required (id serial PRIMARY KEY, deleted_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE born_removed (id serial PRIMARY KEY, deleted_at timestamptz DEFAULT CURRENT_TIMESTAMP);
      CREATE TABLE as_text (id serial PRIMARY KEY, removed_at text, deleted_time time, trashed_at timestamptz[]);
      CREATE TABLE by_day (id serial PRIMARY KEY, deleted_on date);
      CREATE TABLE twice (id serial PRIMARY KEY, deleted_at timestamptz, removed_at timestamptz);
      CREATE TABLE flagged (id serial PRIMARY KEY, is_deleted boolean NOT NULL DEFAULT false);
      CREATE TABLE archived (id serial PRIMARY KEY, archived_at timestamptz, deleted_by integer);
    `);
    const { catalog, extras } = await introspect(db.url!, ["public"]);
    const pulled = pulledFile(catalog, extras, "schema.resource");
    if (!pulled.ok) throw new Error(pulled.diagnostics.map((d) => d.message).join("\n"));
    // Every table is kept: a mark the language would refuse is never written.
    expect(pulled.leftOut).toEqual([]);
    const { service, markers } = softDeleteTables(pulled.text);
    expect(markers).toEqual({
      paranoid: "deleted_at",
      prisma_style: "deletedAt",
      discarded: "discarded_at",
      twice: "deleted_at",
    });
    const scoped = service.tables.filter((t) => t.scoped).map((t) => t.name);
    expect(scoped.sort()).toEqual(["by_day", "flagged", "twice"]);
    for (const t of service.tables) expect(t.resource, t.name).toBeDefined();
    expect(pulled.text).toMatch(/\/\/ not a soft delete: it is NOT NULL, so every row carries a value\n  deleted_at /);
    expect(pulled.text).toMatch(/\/\/ not a soft delete: its default CURRENT_TIMESTAMP gives every new row a value/);
    expect(pulled.text).toMatch(/\/\/ not a soft delete: a text column is not read as a removal mark\n  removed_at /);
    expect(pulled.text).toMatch(/@@scoped +\/\/ deleted_on marks removed rows/);
    expect(pulled.text).toMatch(/@@scoped +\/\/ removed_at marks removed rows/);
    expect(pulled.text).toMatch(/@@scoped +\/\/ is_deleted marks removed rows/);
    expect(pulled.text).toMatch(
      /  \/\/ a soft delete: resc never serves a row where it is set, and DELETE sets it\n  deleted_at +timestamptz\(3\)\? +@map\("deletedAt"\) @soft_delete @hidden/,
    );
    expect(pulled.text).not.toMatch(/archived_at[^\n]*@soft_delete/);
  });
});

/** A database other software made, and the soft-delete tables pull must find in it. */
interface Adopted {
  name: string;
  load(url: string): Promise<void>;
  /** Table (its name in the pulled file) → its marker column (database name). */
  markers: Record<string, string>;
}

const RAILS = path.resolve(import.meta.dirname, "rails-soft-delete.sql");

const ADOPTED: Adopted[] = [
  {
    name: "umami",
    load: (url) => loadMigrations(url, "umami"),
    markers: { link: "deleted_at", pixel: "deleted_at", team: "deleted_at", user: "deleted_at", website: "deleted_at" },
  },
  { name: "hoppscotch", load: (url) => loadMigrations(url, "hoppscotch"), markers: { mock_server: "deletedAt" } },
  {
    name: "rails",
    load: async (url) => {
      const r = await run("psql", ["-q", "-X", "-v", "ON_ERROR_STOP=1", "-d", url, "-f", RAILS]);
      if (r.code !== 0) throw new Error(`psql could not load ${RAILS}: ${r.stderr}`);
    },
    markers: {
      accounts: "deleted_at",
      agents: "deleted_at",
      macros: "discarded_at",
      replies: "deleted_at",
      tickets: "deleted_at",
    },
  },
];

/** What a test insert needs to know of a column, read from the catalog. */
interface ColumnFacts {
  name: string;
  type: string;
  notNull: string;
  /** Numbered or computed by the database: never written. */
  auto: string;
  /** An enum's first value. */
  label: string | null;
  /** The table and column a single-column foreign key on it refers to. */
  refTable: string | null;
  refColumn: string | null;
}

const COLUMN_FACTS = `
  SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull::text AS "notNull",
    (a.attidentity <> '' OR a.attgenerated <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%')::text AS auto,
    (SELECT e.enumlabel FROM pg_enum e WHERE e.enumtypid = a.atttypid ORDER BY e.enumsortorder LIMIT 1) AS label,
    (SELECT k.confrelid::regclass::text FROM pg_constraint k
      WHERE k.conrelid = a.attrelid AND k.contype = 'f' AND k.conkey = ARRAY[a.attnum] LIMIT 1) AS "refTable",
    (SELECT r.attname FROM pg_constraint k JOIN pg_attribute r ON r.attrelid = k.confrelid AND r.attnum = k.confkey[1]
      WHERE k.conrelid = a.attrelid AND k.contype = 'f' AND k.conkey = ARRAY[a.attnum] LIMIT 1) AS "refColumn"
  FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
  WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`;

let counter = 0;

/** A value of column `c`'s type for a test row, numbered so unique columns stay unique. */
function valueFor(c: ColumnFacts): string {
  const n = ++counter;
  if (c.label !== null) return c.label;
  if (c.type.endsWith("[]")) return "{}";
  if (c.type === "uuid") return randomUUID();
  if (/^(text|character varying|citext)/.test(c.type)) return `r${n}`;
  if (/^(smallint|integer|bigint|numeric|real|double precision)/.test(c.type)) return String(n);
  if (c.type === "boolean") return "false";
  if (/^(timestamp|date)/.test(c.type)) return new Date().toISOString();
  if (/^jsonb?$/.test(c.type)) return "{}";
  throw new Error(`no test value for column ${c.name} of type ${c.type}`);
}

/**
 * Inserts a row into `table` (SQL, qualified as needed) straight into the database: every NOT NULL column the
 * database does not number gets a value, a required reference a new row of its own; `values` sets columns (by
 * database name) as text.
 * @returns the row as JSON
 */
async function insertRow(
  db: TestDatabase,
  table: string,
  values: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const facts = (await db.executor.query({ text: COLUMN_FACTS, values: [table] })).rows as unknown as ColumnFacts[];
  const names: string[] = [];
  const params: string[] = [];
  const casts: string[] = [];
  for (const c of facts) {
    let v = values[c.name];
    if (v === undefined) {
      if (c.notNull !== "true" || c.auto === "true") continue;
      v = c.refTable !== null ? String((await insertRow(db, c.refTable))[c.refColumn!]) : valueFor(c);
    }
    names.push(quote(c.name));
    params.push(v);
    casts.push(`$${params.length}::${c.type}`);
  }
  const r = await db.executor.query({
    text: `INSERT INTO ${table} AS x (${names.join(", ")}) VALUES (${casts.join(", ")}) RETURNING to_jsonb(x)::text AS row`,
    values: params,
  });
  return JSON.parse(r.rows[0]!.row!) as Record<string, unknown>;
}

/** A list of the collection at `url`: its status, the keys (column `key`) of its rows and its exact total. */
async function listed(url: string, key: string): Promise<{ status: number; keys: string[]; total: number }> {
  const r = await fetch(`${url}?per_page=100&count=exact`);
  const body = (await r.json()) as { items?: Record<string, unknown>[]; total?: number };
  return { status: r.status, keys: (body.items ?? []).map((i) => String(i[key])), total: body.total ?? -1 };
}

describe.skipIf(!server).each(ADOPTED)("$name, pulled and served with no hooks module", (adopted) => {
  let db: TestDatabase;
  let dir: string;
  let text: string;

  it("loads, and resc pull marks exactly its soft-delete columns, scoping no table", async () => {
    db = await fresh(`pull_soft_${adopted.name}`);
    await adopted.load(db.url!);
    dir = await mkdtemp(path.join(os.tmpdir(), `resc-soft-${adopted.name}-`));
    dirs.push(dir);
    const pull = await runNode([path.resolve("bin/resc.js"), "pull", db.url!, "--out", "schema.resource"], {
      cwd: dir,
      timeout: 120_000,
    });
    expect(pull.code, pull.stderr).toBe(0);
    text = await readFile(path.join(dir, "schema.resource"), "utf8");
    expect(softDeleteTables(text).markers).toEqual(adopted.markers);
    expect(text).not.toMatch(/@@scoped|BeforeQuery/);
    const said = text.match(/\/\/ a soft delete: resc never serves a row where it is set, and DELETE sets it\n/g);
    expect(said?.length).toBe(Object.keys(adopted.markers).length);
  }, 120_000);

  it("resc dev serves it: removed rows are 404s, and DELETE marks a live row, keeping it in the table", async () => {
    const { service } = softDeleteTables(text);
    const soft = service.tables.filter((t) => t.softDeleteColumn !== undefined);
    // Rows straight into the database, as the application left them: two live and one removed in each.
    const rows = new Map<string, { live: string[]; removed: string }>();
    for (const t of soft) {
      const key = dbColumn(t, t.primaryKey[0]!);
      const marker = dbColumn(t, t.softDeleteColumn!);
      const live = [await insertRow(db, sqlName(t)), await insertRow(db, sqlName(t))].map((r) => String(r[key]));
      const removed = String((await insertRow(db, sqlName(t), { [marker]: "2024-05-01T12:00:00Z" }))[key]);
      rows.set(t.name, { live, removed });
    }
    // Pull serves reads only; a user widens it by editing the file (docs/lifecycle.md).
    let edited = text;
    for (const t of soft) {
      const resource = `resource "${t.resource!.path}" { ops = [reads] }`;
      expect(edited).toContain(resource);
      edited = edited.replace(resource, `resource "${t.resource!.path}" { ops = [reads, delete] }`);
    }
    await writeFile(path.join(dir, "schema.resource"), edited);

    let dev: ServeProcess | undefined;
    try {
      dev = await startResc("dev", "schema.resource", ["--database-url", db.url!], { cwd: dir, ms: 60_000 });
      expect(dev.output()).not.toMatch(/registration|requires a BeforeQuery hook/i);
      for (const t of service.tables) {
        if (!t.resource) continue;
        const r = await fetch(`${dev.base}${t.resource.path}?per_page=1`);
        expect(r.status, `${t.resource.path}: ${await r.text()}`).toBe(200);
      }
      for (const t of soft) {
        const at = `${dev.base}${t.resource!.path}`;
        const key = t.primaryKey[0]!;
        const { live, removed } = rows.get(t.name)!;
        // A required reference made rows of its own elsewhere: the list holds exactly the unmarked rows.
        const unmarked = await db.executor.query({
          text: `SELECT ${quote(dbColumn(t, key))}::text AS k FROM ${sqlName(t)}
                 WHERE ${quote(dbColumn(t, t.softDeleteColumn!))} IS NULL`,
          values: [],
        });
        const before = await listed(at, key);
        expect(before.status, t.name).toBe(200);
        expect(before.keys, t.name).toEqual(expect.arrayContaining(live));
        expect(before.keys, t.name).not.toContain(removed);
        expect(before.keys.sort(), t.name).toEqual(unmarked.rows.map((r) => r.k!).sort());
        expect(before.total, t.name).toBe(unmarked.rows.length);
        expect((await fetch(`${at}/${encodeURIComponent(removed)}`)).status, `${t.name} removed`).toBe(404);
        const read = await fetch(`${at}/${encodeURIComponent(live[0]!)}`);
        expect(read.status, t.name).toBe(200);
        expect(Object.keys((await read.json()) as object), t.name).not.toContain(t.softDeleteColumn);

        const del = await fetch(`${at}/${encodeURIComponent(live[0]!)}`, { method: "DELETE" });
        expect(del.status, `${t.name}: ${await del.text()}`).toBe(204);
        const stored = await db.executor.query({
          text: `SELECT (${quote(dbColumn(t, t.softDeleteColumn!))} IS NOT NULL)::text AS marked FROM ${sqlName(t)}
                 WHERE ${quote(dbColumn(t, key))}::text = $1`,
          values: [live[0]!],
        });
        expect(stored.rows, `${t.name}: the row stays, marked`).toEqual([{ marked: "true" }]);
        expect((await fetch(`${at}/${encodeURIComponent(live[0]!)}`)).status, `${t.name} deleted`).toBe(404);
        expect((await fetch(`${at}/${encodeURIComponent(live[0]!)}`, { method: "DELETE" })).status).toBe(404);
        const after = await listed(at, key);
        expect(after.keys, t.name).not.toContain(live[0]);
        expect(after.keys, t.name).toContain(live[1]);
        expect(after.total, t.name).toBe(before.total - 1);
      }
    } finally {
      await dev?.stop();
    }
  }, 180_000);
});
