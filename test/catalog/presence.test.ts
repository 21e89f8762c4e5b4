/**
 * The live schema check (`resc dev --database-url`, `resc serve`'s /ready) as the catalog room computes it
 * (docs/decisions/1375-catalog-room.md): the one reader, the differ's presence-only mode against the schema
 * projected without a scratch database, and one sentence per missing object. Extra objects are fine.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredCatalog, diffCatalogs, findSchemaMismatches, readCatalog } from "../../catalog/index.js";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";

const { schema, ddl } = compileText(`
enum status { open done }
domain year integer @check("VALUE >= 1901")
table books {
  id     bigint @primary_key @default(identity)
  title  text
  state  status
  issued year?
  @@index([title])
  @@index([state], using: hash)
  resource "/books" { ops = [list] }
}
table shelves {
  id   bigint @primary_key @default(identity)
  name text
  @@schema("store")
  resource "/shelves" { ops = [list] }
}
`);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("catalog_presence");
});
afterAll(async () => {
  await db?.drop();
});

describe("the presence-only comparison", () => {
  it("names every missing object in declaration order, and is satisfied by what resc sql creates", async () => {
    await db.executor.script(`
      CREATE TYPE status AS ENUM ('open');
      CREATE TABLE books (id bigint PRIMARY KEY, title text, extra_column text);
      CREATE INDEX books_title_named_otherwise ON books (title);
      CREATE TABLE unrelated (x int);`);
    expect(await findSchemaMismatches(db.executor, schema)).toEqual([
      'enum "status" has no value "done"',
      'domain "year" is missing',
      'column "books.state" is missing',
      'column "books.issued" is missing',
      'index on "books" (state) using hash is missing',
      'table "store.shelves" is missing',
    ]);
    await db.executor.script("DROP TABLE books; DROP TYPE status; DROP TABLE unrelated;");
    await db.executor.script(ddl);
    expect(await findSchemaMismatches(db.executor, schema)).toEqual([]);
    // Extras stay fine: a column, an index and a table the schema does not declare.
    await db.executor.script(
      "ALTER TABLE books ADD COLUMN note text; CREATE INDEX books_note ON books (note); CREATE TABLE other (x int);",
    );
    expect(await findSchemaMismatches(db.executor, schema)).toEqual([]);
  });

  it("finds an unplaced table through the search path, and a key's index as an index", async () => {
    const { schema: placed } = compileText(`
table tags {
  id   bigint @primary_key
  name text
  @@index([id])
  resource "/tags" { ops = [list] }
}
`);
    await db.executor.script(
      `CREATE SCHEMA IF NOT EXISTS app; CREATE TABLE app.tags (id bigint PRIMARY KEY, name text);`,
    );
    expect(await findSchemaMismatches(db.executor, placed)).toEqual(['table "tags" is missing']);
    if (db.kind === "pg") {
      // A pool's connections each have their own session: the database's setting reaches every new one.
      await db.executor.script(`ALTER DATABASE "${new URL(db.url!).pathname.slice(1)}" SET search_path TO public, app`);
      const through = createPgExecutor({ connectionString: db.url!, max: 2 });
      try {
        expect(await findSchemaMismatches(through, placed)).toEqual([]);
      } finally {
        await through.close();
      }
    } else {
      await db.executor.script("SET search_path TO public, app");
      try {
        expect(await findSchemaMismatches(db.executor, placed)).toEqual([]);
      } finally {
        await db.executor.script("SET search_path TO public");
      }
    }
  });

  it("finds a declared table in a view of that name, as it always has", async () => {
    const { schema: overView } = compileText(`
table book_titles {
  id    bigint @primary_key
  title text
  resource "/book_titles" { ops = [list] }
}
`);
    expect(await findSchemaMismatches(db.executor, overView)).toEqual(['table "book_titles" is missing']);
    await db.executor.script("CREATE VIEW book_titles AS SELECT id, title FROM books");
    expect(await findSchemaMismatches(db.executor, overView)).toEqual([]);
    await db.executor.script("DROP VIEW book_titles");
  });

  it("is the differ's mode, not a second differ: the same catalogs, only the steps adding what is missing", async () => {
    const live = await readCatalog(db.executor, ["public", "store"]);
    const declared = declaredCatalog(schema);
    expect(declaredCatalog(schema)).toBe(declared);
    const steps = diffCatalogs(live, declared, new Map(), { presence: { searchPath: ["public"] } });
    expect(steps).toEqual([]);
    const without = { ...live, tables: live.tables.filter((t) => t.name !== "books") };
    const missing = diffCatalogs(without, declared, new Map(), { presence: { searchPath: ["public"] } });
    expect(missing.map((s) => s.adds)).toEqual([{ kind: "table", table: expect.objectContaining({ name: "books" }) }]);
    expect(missing[0]!.sql).toMatch(/^CREATE TABLE "books"/);
  });
});
