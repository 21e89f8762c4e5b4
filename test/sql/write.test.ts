import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import type { SqlStatement } from "../../runtime/exec/executor.js";
import { compileDelete, compileInsert, compileRead, compileUpdate, encodeRow } from "../../runtime/sql/index.js";
import type { RowLayout } from "../../runtime/sql/members.js";
import { cmp, raw } from "../../runtime/predicate.js";
import { counter, item, loadSchema, rowObjects, service } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_write");
  await loadSchema(db.executor);
});

afterAll(async () => {
  await db.drop();
});

/**
 * Runs a write and parses the rows it returns: a row's members written as
 * the handlers write them (decision 1351), or a delete's key object in `j`.
 */
async function one(stmt: SqlStatement & { layout?: RowLayout }) {
  const r = await db.executor.query(stmt);
  const text = (x: Record<string, string | null>): string =>
    stmt.layout === undefined ? (x.j ?? "null") : encodeRow(x, stmt.layout);
  return { rowCount: r.rowCount, rows: r.rows.map((x) => JSON.parse(text(x)) as Record<string, unknown>) };
}

/** The rows of a read, written as the read handler writes them (decision 0805). */
async function read(key: number) {
  return { rows: await rowObjects(db.executor, compileRead(service, item, key)) };
}

const hostile = `Robert'); DROP TABLE item; -- \\ "q" $1`;

describe("compileInsert", () => {
  it("inserts every kind of value and returns the stored row in the read form", async () => {
    const stmt = compileInsert(service, item, {
      id: 100,
      parent_id: 2,
      title: hostile,
      note: null,
      qty: 7,
      big: 9007199254740993n,
      price: "3.10",
      mood: "sad",
      tags: ["x", 'y"z', "with,comma", "NULL", ""],
      attrs: { a: [1, 2], s: "it's" },
      due: "2024-02-29",
      at: new Date("2024-01-01T00:00:00.120Z"),
      local: "2024-01-01T12:30:00.000001",
      code: "abc",
      blob: "\\xdeadbeef",
      done: false,
      days: ["2024-01-01", "2024-12-31"],
      secret: "stamped by a hook",
      nothing: undefined,
    });
    expect(stmt.text).not.toContain("DROP");
    expect(stmt.text).toMatch(/^INSERT INTO "item" AS "t0" \("id", "parent_id", "title", /);
    const r = await one(stmt);
    expect(r.rowCount).toBe(1);
    const expected = {
      id: 100,
      parent_id: 2,
      title: hostile,
      note: null,
      qty: 7,
      big: 9007199254740993,
      price: "3.10",
      mood: "sad",
      tags: ["x", 'y"z', "with,comma", "NULL", ""],
      attrs: { a: [1, 2], s: "it's" },
      due: "2024-02-29T00:00:00Z",
      at: "2024-01-01T00:00:00.12Z",
      local: "2024-01-01T12:30:00.000001",
      code: "abc  ",
      blob: "3q2+7w==",
      done: false,
      days: ["2024-01-01T00:00:00Z", "2024-12-31T00:00:00Z"],
      summary: `${hostile} `,
    };
    expect(r.rows[0]).toEqual(expected);
    // The insert answers exactly what a read of the row answers.
    expect((await read(100)).rows[0]).toEqual(expected);
    const secret = await db.executor.query({
      text: `SELECT "secret", "big"::text AS "big" FROM "item" WHERE "id" = 100`,
      values: [],
    });
    expect(secret.rows[0]).toEqual({ secret: "stamped by a hook", big: "9007199254740993" });
  });

  it("a JSON string or number is a document in a jsonb column; null is SQL NULL", async () => {
    const a = await one(compileInsert(service, item, { id: 101, title: "doc", attrs: "just text" }));
    expect(a.rows[0]).toMatchObject({ attrs: "just text" });
    const b = await one(compileInsert(service, item, { id: 102, title: "doc", attrs: null }));
    expect(b.rows[0]).toMatchObject({ attrs: null });
    const t = await db.executor.query({
      text: `SELECT jsonb_typeof("attrs") AS "t" FROM "item" WHERE "id" = 101`,
      values: [],
    });
    expect(t.rows[0].t).toBe("string");
  });

  it("an insert with no values uses DEFAULT VALUES", async () => {
    const stmt = compileInsert(service, counter, {});
    expect(stmt.text).toContain(`INSERT INTO "counter" AS "t0" DEFAULT VALUES RETURNING `);
    expect(stmt.values).toEqual([]);
    expect((await one(stmt)).rows).toEqual([{ id: 1, created: "2001-01-01T00:00:00Z" }]);
    expect((await one(compileInsert(service, counter, { created: undefined }))).rows).toEqual([
      { id: 2, created: "2001-01-01T00:00:00Z" },
    ]);
  });

  it("refuses computed and unknown columns and values of the wrong shape", () => {
    expect(() => compileInsert(service, item, { id: 1, title: "t", summary: "x" })).toThrow(/computed/);
    expect(() => compileInsert(service, item, { id: 1, nope: 1 })).toThrow(/"nope"/);
    expect(() => compileInsert(service, item, { id: 1, tags: "a" })).toThrow(/array/);
    expect(() => compileInsert(service, item, { id: [1] })).toThrow(/single value/);
  });
});

describe("compileUpdate", () => {
  it("sets the given columns of the addressed row and returns it", async () => {
    const r = await one(compileUpdate(service, item, 4, { note: null, qty: 6, tags: ["z"], due: "2030-05-06" }));
    expect(r.rowCount).toBe(1);
    expect(r.rows[0]).toMatchObject({
      id: 4,
      note: null,
      qty: 6,
      tags: ["z"],
      due: "2030-05-06T00:00:00Z",
      title: "back\\slash",
    });
    expect(r.rows[0]).not.toHaveProperty("parent");
    expect((await read(4)).rows[0]).toEqual(r.rows[0]);
  });

  it("returns no row for a missing key or a row outside the scope, and writes nothing then", async () => {
    expect((await one(compileUpdate(service, item, 404, { qty: 1 }))).rows).toEqual([]);
    const scoped = await one(compileUpdate(service, item, 5, { qty: 1 }, cmp("parent_id", "eq", 1)));
    expect(scoped.rowCount).toBe(0);
    expect((await read(5)).rows[0]).toMatchObject({ qty: 30 });
    const inScope = await one(compileUpdate(service, item, 5, { qty: 31 }, raw`"parent_id" = ${2}`));
    expect(inScope.rows[0]).toMatchObject({ id: 5, qty: 31 });
  });

  it("binds a hostile value", async () => {
    const stmt = compileUpdate(service, item, 6, { title: hostile });
    expect(stmt.text).not.toContain("DROP");
    expect((await one(stmt)).rows[0]).toMatchObject({ id: 6, title: hostile });
  });

  it("refuses an empty change set and a key of the wrong shape", () => {
    expect(() => compileUpdate(service, item, 1, {})).toThrow(/no values/);
    expect(() => compileUpdate(service, item, 1, { qty: undefined })).toThrow(/no values/);
    const composite = { ...item, primaryKey: ["id", "title"] };
    // A composite key is addressed by every key column's value (decision 1376): one value is a programming error.
    expect(() => compileUpdate(service, composite, 1, { qty: 1 })).toThrow(/addressed by 2 key column/);
    expect(compileUpdate(service, composite, [1, "t"], { qty: 1 }).text).toMatch(
      /"id" = \$\d+::\w+ AND "t0"\."title" = \$/,
    );
  });
});

describe("compileDelete", () => {
  it("deletes the addressed row in scope; the row count tells whether it existed", async () => {
    await db.executor.query(compileInsert(service, item, { id: 200, title: "gone soon", parent_id: 1 }));
    const outOfScope = await one(compileDelete(service, item, 200, cmp("parent_id", "eq", 2)));
    expect(outOfScope.rowCount).toBe(0);
    const gone = await one(compileDelete(service, item, 200, cmp("parent_id", "eq", 1)));
    expect(gone).toEqual({ rowCount: 1, rows: [{ id: 200 }] });
    expect((await one(compileDelete(service, item, 200))).rowCount).toBe(0);
    expect((await read(200)).rows).toEqual([]);
  });

  it("binds the key", () => {
    const stmt = compileDelete(service, item, "1 OR 1=1");
    expect(stmt.text).toBe(
      `DELETE FROM "item" AS "t0" WHERE "t0"."id" = $1::integer ` +
        `RETURNING (SELECT row_to_json("o") FROM (SELECT "t0"."id" AS "id") AS "o")::text AS "j"`,
    );
    expect(stmt.values).toEqual(["1 OR 1=1"]);
  });
});
