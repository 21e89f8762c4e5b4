import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { Params, compileWhere } from "../../runtime/sql/index.js";
import { and, cmp, not, or, raw, type Predicate } from "../../runtime/predicate.js";
import { item, loadSchema } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_where");
  await loadSchema(db.executor);
});

afterAll(async () => {
  await db.drop();
});

/** The ids of the item rows matching `p`, ascending. */
async function ids(p: Predicate): Promise<number[]> {
  const params = new Params();
  const cond = compileWhere(item, p, "t0", params);
  const r = await db.executor.query(
    params.statement(`SELECT "t0"."id"::text AS "id" FROM "item" AS "t0" WHERE ${cond} ORDER BY "t0"."id"`),
  );
  return r.rows.map((row) => Number(row.id));
}

describe("compileWhere: scalar operators", () => {
  it.each<[string, Predicate, number[]]>([
    ["eq", cmp("qty", "eq", 10), [1]],
    ["ne (NULL matches neither)", cmp("qty", "ne", 10), [2, 4, 5, 6]],
    ["gt", cmp("qty", "gt", 10), [2, 5, 6]],
    ["gte", cmp("qty", "gte", 10), [1, 2, 5, 6]],
    ["lt", cmp("qty", "lt", 20), [1, 4]],
    ["lte", cmp("qty", "lte", 20), [1, 2, 4, 6]],
    ["in", cmp("qty", "in", [10, 30]), [1, 5]],
    ["nin (NULL matches neither)", cmp("qty", "nin", [10, 30]), [2, 4, 6]],
    ["in of no values", cmp("qty", "in", []), []],
    ["nin of no values keeps only non-null", cmp("qty", "nin", []), [1, 2, 4, 5, 6]],
    ["between", cmp("qty", "between", [10, 20]), [1, 2, 6]],
    ["isnull", cmp("qty", "isnull"), [3]],
    ["notnull", cmp("qty", "notnull"), [1, 2, 4, 5, 6]],
    ["not eq (NULL matches neither)", not(cmp("qty", "eq", 10)), [2, 4, 5, 6]],
    ["text eq", cmp("title", "eq", "Alpha"), [1]],
    ["text ne on nullable", cmp("note", "ne", "x"), [1, 4, 5, 6]],
    ["enum eq", cmp("mood", "eq", "happy"), [1, 5]],
    ["enum gt follows declaration order", cmp("mood", "gt", "happy"), [2, 4, 6]],
    ["enum in", cmp("mood", "in", ["sad", "meh"]), [2, 4, 6]],
    ["enum nin", cmp("mood", "nin", ["happy"]), [2, 4, 6]],
    ["numeric gt from decimal text", cmp("price", "gt", "2"), [2, 4, 6]],
    ["numeric eq ignores scale", cmp("price", "eq", "2.250"), [2, 6]],
    ["numeric between", cmp("price", "between", ["0.1", "1.5"]), [1, 5]],
    ["bigint beyond 2^53", cmp("big", "eq", 9007199254740993n), [1]],
    ["bigint in", cmp("big", "in", [2n, 3n]), [2, 3]],
    ["date eq from text", cmp("due", "eq", "2006-02-14"), [1, 6]],
    ["date eq from a Date", cmp("due", "eq", new Date("2006-02-14T00:00:00Z")), [1, 6]],
    ["date gte", cmp("due", "gte", "2020-01-01"), [3, 4]],
    ["timestamptz eq keeps microseconds", cmp("at", "eq", "2020-01-02T03:04:05.123456Z"), [1]],
    ["timestamptz lt a Date", cmp("at", "lt", new Date("2020-01-02T03:04:05.124Z")), [1, 4, 5]],
    ["timestamptz with offset", cmp("at", "eq", "2022-01-01T00:00:00Z"), [6]],
    ["boolean eq", cmp("done", "eq", true), [1, 4, 6]],
    ["boolean ne", cmp("done", "ne", true), [2, 5]],
    ["bytea eq (PostgreSQL hex input)", cmp("blob", "eq", "\\x0102"), [1]],
    ["character(n) eq", cmp("code", "eq", "ab"), [1]],
    ["hidden column (hooks may filter on it)", cmp("secret", "eq", "s1"), [1]],
    ["computed column as its expression", cmp("summary", "eq", "Alpha first"), [1]],
  ])("%s", async (_name, p, expected) => {
    expect(await ids(p)).toEqual(expected);
  });
});

describe("compileWhere: text patterns", () => {
  it.each<[string, Predicate, number[]]>([
    ["like is case-sensitive", cmp("title", "like", "alpha%"), [6]],
    ["like takes the pattern as is", cmp("title", "like", "100%"), [2]],
    ["like pattern with its own escape", cmp("title", "like", "%\\_%"), [3]],
    ["ilike", cmp("title", "ilike", "ALPHA%"), [1, 6]],
    ["contains is case-insensitive", cmp("title", "contains", "LPH"), [1, 6]],
    ["contains % matches only a literal percent", cmp("title", "contains", "%"), [2]],
    ["contains _ matches only a literal underscore", cmp("title", "contains", "_"), [3]],
    ["contains a backslash", cmp("title", "contains", "\\"), [4]],
    ["contains a quote", cmp("title", "contains", "'"), [5]],
    ["startswith", cmp("title", "startswith", "al"), [1, 6]],
    ["startswith % is literal", cmp("title", "startswith", "%"), []],
    ["startswith 100%", cmp("title", "startswith", "100%"), [2]],
    ["endswith", cmp("title", "endswith", "BET"), [6]],
    ["endswith _score", cmp("title", "endswith", "_score"), [3]],
    ["enum contains via its text", cmp("mood", "contains", "AP"), [1, 5]],
    ["enum like", cmp("mood", "like", "%a%"), [1, 2, 5, 6]],
    ["contains on a nullable column", cmp("note", "contains", "I"), [1, 5]],
  ])("%s", async (_name, p, expected) => {
    expect(await ids(p)).toEqual(expected);
  });
});

describe("compileWhere: array operators", () => {
  it.each<[string, Predicate, number[]]>([
    ["eq compares the whole array", cmp("tags", "eq", ["a", "b"]), [1]],
    ["eq with the empty array", cmp("tags", "eq", []), [4]],
    ["ne (NULL matches neither)", cmp("tags", "ne", ["a", "b"]), [2, 4, 5, 6]],
    ["has", cmp("tags", "has", "a"), [1, 5]],
    ["nhas", cmp("tags", "nhas", "a"), [2, 4, 6]],
    ["has an element with a comma", cmp("tags", "has", "with,comma"), [5]],
    ["has an element with a double quote", cmp("tags", "has", 'quote"d'), [5]],
    ["hasany", cmp("tags", "hasany", ["a", "c"]), [1, 2, 5, 6]],
    ["nhasany", cmp("tags", "nhasany", ["a", "c"]), [4]],
    ["hasall", cmp("tags", "hasall", ["a", "b"]), [1]],
    ["nhasall", cmp("tags", "nhasall", ["a", "b"]), [2, 4, 5, 6]],
    ["isnull", cmp("tags", "isnull"), [3]],
    ["notnull", cmp("tags", "notnull"), [1, 2, 4, 5, 6]],
    ["date array has", cmp("days", "has", "2006-02-14"), [1]],
  ])("%s", async (_name, p, expected) => {
    expect(await ids(p)).toEqual(expected);
  });
});

describe("compileWhere: document operators", () => {
  it.each<[string, Predicate, number[]]>([
    ["hasdoc is subset containment", cmp("attrs", "hasdoc", { k: 1 }), [1, 4]],
    ["hasdoc is typed: a string is not a number", cmp("attrs", "hasdoc", { k: "1" }), [5]],
    ["hasdoc nested", cmp("attrs", "hasdoc", { x: { y: 2 } }), [1, 6]],
    ["nhasdoc (NULL matches neither)", cmp("attrs", "nhasdoc", { k: 1 }), [2, 5, 6]],
    ["nhasdoc keeps a document holding only some keys", cmp("attrs", "nhasdoc", { k: 1, x: { y: 2 } }), [2, 4, 5, 6]],
    ["isnull", cmp("attrs", "isnull"), [3]],
  ])("%s", async (_name, p, expected) => {
    expect(await ids(p)).toEqual(expected);
  });
});

describe("compileWhere: groups and raw predicates", () => {
  it("an empty and is TRUE and an empty or is FALSE", async () => {
    expect(await ids({ kind: "and", children: [] })).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await ids({ kind: "or", children: [] })).toEqual([]);
    const params = new Params();
    expect(compileWhere(item, { kind: "and", children: [] }, "t0", params)).toBe("TRUE");
    expect(compileWhere(item, { kind: "or", children: [] }, "t0", params)).toBe("FALSE");
  });

  it("or, and and not nest with three-valued logic", async () => {
    expect(await ids(or(cmp("title", "eq", "Alpha"), cmp("note", "isnull")))).toEqual([1, 2]);
    expect(await ids(and(cmp("qty", "gte", 10), cmp("mood", "eq", "sad")))).toEqual([2, 6]);
    // Row 3 has qty and mood NULL: NOT (NULL AND NULL) is NULL, so it is not kept.
    expect(await ids(not(and(cmp("qty", "gt", 5), cmp("mood", "eq", "happy"))))).toEqual([2, 4, 6]);
    expect(await ids(not(or(cmp("qty", "eq", 10), cmp("qty", "eq", 20))))).toEqual([4, 5]);
  });

  it("a raw predicate's values are renumbered among the statement's parameters", async () => {
    const p = and(cmp("title", "ne", "x"), raw`"qty" > ${15} AND "mood" = ${"sad"}`, cmp("big", "lt", 100n));
    const params = new Params();
    const sql = compileWhere(item, p, "t0", params);
    expect(sql).toBe(
      `("t0"."title" <> $1::text) AND (("qty" > $2 AND "mood" = $3)) AND ("t0"."big" < $4::bigint)`,
    );
    expect(params.values).toEqual(["x", "15", "sad", "100"]);
    expect(await ids(p)).toEqual([2, 6]);
  });

  it("a comparison qualified with the compiled table is accepted, another relation is an error naming it", async () => {
    expect(await ids(cmp("qty", "eq", 10, "item"))).toEqual([1]);
    expect(() => compileWhere(item, cmp("qty", "eq", 10, "parent"), "t0", new Params())).toThrow(/"parent"/);
    expect(() => compileWhere(item, not(cmp("qty", "eq", 10, "other")), "t0", new Params())).toThrow(/"other"/);
  });

  it("refuses unknown columns, operators a column does not take and malformed values", () => {
    expect(() => compileWhere(item, cmp("nope", "eq", 1), "t0", new Params())).toThrow(/"nope"/);
    expect(() => compileWhere(item, cmp("tags", "gt", "a"), "t0", new Params())).toThrow(/gt/);
    expect(() => compileWhere(item, cmp("attrs", "eq", { k: 1 }), "t0", new Params())).toThrow(/eq/);
    expect(() => compileWhere(item, cmp("qty", "contains", "1"), "t0", new Params())).toThrow(/contains/);
    expect(() => compileWhere(item, cmp("qty", "between", [1]), "t0", new Params())).toThrow(/two values/);
    expect(() => compileWhere(item, cmp("qty", "in", 3), "t0", new Params())).toThrow(/list/);
    expect(() => compileWhere(item, cmp("qty", "eq", [3]), "t0", new Params())).toThrow(/single value/);
  });
});

describe("compileWhere: values are bound, never interpolated", () => {
  const hostile = `'; drop table item; -- "x" \\ $1 %_`;

  it("a hostile string is a bind parameter and matches nothing", async () => {
    for (const p of [
      cmp("title", "eq", hostile),
      cmp("title", "contains", hostile),
      cmp("title", "like", hostile),
      cmp("tags", "has", hostile),
      cmp("tags", "hasany", [hostile, "z"]),
      cmp("attrs", "hasdoc", { [hostile]: hostile }),
    ]) {
      const params = new Params();
      const sql = compileWhere(item, p, "t0", params);
      expect(sql).not.toContain("drop");
      expect(sql).not.toContain("'; ");
      expect(params.values.join("")).toContain("drop table item");
      expect(await ids(p)).toEqual([]);
    }
    const still = await db.executor.query({ text: `SELECT count(*)::text AS "n" FROM "item"`, values: [] });
    expect(still.rows[0].n).toBe("6");
  });

  it("a stored hostile string is found by equality", async () => {
    await db.executor.query({ text: `INSERT INTO "item" ("id", "title") VALUES (99, $1)`, values: [hostile] });
    try {
      expect(await ids(cmp("title", "eq", hostile))).toEqual([99]);
      expect(await ids(cmp("title", "contains", hostile.slice(0, 12)))).toEqual([99]);
    } finally {
      await db.executor.query({ text: `DELETE FROM "item" WHERE "id" = 99`, values: [] });
    }
  });
});
