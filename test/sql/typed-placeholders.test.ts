/**
 * Placeholders carry their column's type (decision 0804): a value for an
 * enum, date or timestamp column is read once, at bind time, not cast from
 * text again for every row the scan visits. The plan shows the difference:
 * a cast through text to a type whose input function is only stable stays in
 * the filter as `('…'::cstring)::<type>`, evaluated per row.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { Params, compileWhere } from "../../runtime/sql/index.js";
import { cmp, type Predicate } from "../../runtime/predicate.js";
import { item, loadSchema } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_typed_placeholders");
  await loadSchema(db.executor);
});

afterAll(async () => {
  await db.drop();
});

/** The text of the plan PostgreSQL makes for a scan of `item` filtered by `p`, with the values bound. */
async function plan(p: Predicate): Promise<string> {
  const params = new Params();
  const where = compileWhere(item, p, "t0", params);
  const r = await db.executor.query(
    params.statement(`EXPLAIN (FORMAT TEXT) SELECT "t0"."id" FROM "item" AS "t0" WHERE ${where}`),
  );
  return r.rows.map((row) => Object.values(row).join("")).join("\n");
}

describe("typed placeholders", () => {
  it.each<[string, Predicate]>([
    ["an enum", cmp("mood", "eq", "sad")],
    ["a timestamptz", cmp("at", "gt", new Date("2020-06-01T00:00:00Z"))],
    ["a date", cmp("due", "lt", "2021-01-01")],
    ["a text array", cmp("tags", "hasany", ["a", "c"])],
  ])("binds %s value without a per-row cast from text", async (_, p) => {
    const text = await plan(p);
    expect(text).toContain("Filter");
    expect(text).not.toContain("cstring");
  });

  it("still finds the rows (the bound value is the column's type)", async () => {
    const params = new Params();
    const where = compileWhere(item, cmp("mood", "in", ["sad", "meh"]), "t0", params);
    const r = await db.executor.query(
      params.statement(`SELECT "t0"."id"::text AS "id" FROM "item" AS "t0" WHERE ${where} ORDER BY 1`),
    );
    const expected = await db.executor.query({
      text: `SELECT id::text AS "id" FROM item WHERE mood IN ('sad', 'meh') ORDER BY 1`,
      values: [],
    });
    expect(expected.rows.length).toBeGreaterThan(1);
    expect(r.rows).toEqual(expected.rows);
  });
});
