import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileList, compileRead } from "../../runtime/sql/index.js";
import { item, listQuery, loadSchema, parent, rowObjects, rowTexts, service } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_output");
  await loadSchema(db.executor);
});

afterAll(async () => {
  await db.drop();
});

const ITEM_1 = {
  id: 1,
  parent_id: 1,
  title: "Alpha",
  note: "first",
  qty: 10,
  big: 9007199254740993,
  price: "1.50",
  mood: "happy",
  tags: ["a", "b"],
  attrs: { k: 1, x: { y: 2 } },
  due: "2006-02-14T00:00:00Z",
  at: "2020-01-02T03:04:05.123456Z",
  local: "2020-01-02T03:04:05",
  code: "ab   ",
  blob: "AQI=",
  done: true,
  days: ["2006-02-14T00:00:00Z", null],
  summary: "Alpha first",
};

describe("row JSON forms", () => {
  it("a read returns every visible column in declaration order, per-kind forms, and the computed columns the resource computes", async () => {
    const texts = await rowTexts(db.executor, compileRead(service, item, 1));
    expect(texts).toHaveLength(1);
    const j = texts[0];
    expect(JSON.parse(j)).toEqual(ITEM_1);
    expect(Object.keys(JSON.parse(j) as object)).toEqual(Object.keys(ITEM_1));
    // bigint is a JSON number, written exactly (JSON.parse would round it).
    expect(j).toContain(`"big":9007199254740993,`);
    expect(j).not.toContain("secret");
    expect(j).not.toContain("shout");
  });

  it("dates and timestamps do not depend on the session time zone", async () => {
    const j = await db.executor.transaction(async (tx) => {
      await tx.query({ text: "SET LOCAL TimeZone = 'Asia/Tokyo'", values: [] });
      const tz = await tx.query({ text: "SELECT current_setting('TimeZone') AS tz", values: [] });
      expect(tz.rows[0].tz).toBe("Asia/Tokyo");
      const read = await rowObjects(tx, compileRead(service, item, 1));
      const expanded = await rowObjects(tx, compileRead(service, parent, 1, ["all_items"]));
      return [read[0], expanded[0]] as const;
    });
    expect(j[0]).toMatchObject({
      due: "2006-02-14T00:00:00Z",
      at: "2020-01-02T03:04:05.123456Z",
      local: "2020-01-02T03:04:05",
      days: ["2006-02-14T00:00:00Z", null],
    });
    const children = (j[1] as { all_items: { items: Record<string, unknown>[] } }).all_items.items;
    expect(children[0]).toMatchObject({ id: 1, due: "2006-02-14T00:00:00Z", at: "2020-01-02T03:04:05.123456Z" });
  });

  it("fractional seconds are trimmed of trailing zeros and dropped when zero; nulls stay null; empty arrays stay empty", async () => {
    const rows = await rowObjects(db.executor, compileList(service, item, listQuery()).rows);
    expect(rows.map((o) => o.at)).toEqual([
      "2020-01-02T03:04:05.123456Z",
      "2021-06-01T00:00:00Z",
      null,
      "2019-12-31T23:59:59.5Z",
      "2020-01-02T03:04:05.123457Z",
      "2022-01-01T00:00:00Z",
    ]);
    expect(rows[1]).toMatchObject({
      note: null,
      due: null,
      price: "2.25",
      days: [],
      blob: null,
      local: null,
      code: null,
    });
    expect(rows[2]).toMatchObject({
      qty: null,
      price: null,
      mood: null,
      tags: null,
      attrs: null,
      days: null,
      done: null,
    });
    expect(rows[3]).toMatchObject({ tags: [], price: "10.00", title: "back\\slash" });
    expect(rows[4]).toMatchObject({ tags: ["a", "with,comma", 'quote"d'], attrs: { k: "1" }, title: "O'Brien" });
  });

  it("infinite dates and timestamps keep their text", async () => {
    await db.executor.query({
      text: `INSERT INTO "item" ("id", "title", "due", "at") VALUES (50, 'inf', 'infinity', '-infinity')`,
      values: [],
    });
    try {
      const r = await rowObjects(db.executor, compileRead(service, item, 50));
      expect(r[0]).toMatchObject({ due: "infinity", at: "-infinity" });
    } finally {
      await db.executor.query({ text: `DELETE FROM "item" WHERE "id" = 50`, values: [] });
    }
  });

  it("a projection keeps declaration order and the key, and never yields hidden or uncomputed columns", async () => {
    const q = listQuery({ select: ["summary", "title", "secret", "shout"], where: undefined });
    const r = await rowObjects(db.executor, compileList(service, item, q).rows);
    expect(r[0]).toEqual({ id: 1, title: "Alpha", summary: "Alpha first" });
    expect(Object.keys(r[0])).toEqual(["id", "title", "summary"]);
    const q2 = listQuery({ select: ["id", "qty"] });
    const r2 = await rowTexts(db.executor, compileList(service, item, q2).rows);
    expect(JSON.parse(r2[2])).toEqual({ id: 3, qty: null });
    expect(r2[0]).not.toContain("summary");
  });

  it("a read of a missing key or a row outside the scope returns no row", async () => {
    expect((await db.executor.query(compileRead(service, item, 404))).rows).toEqual([]);
    const scope = { kind: "cmp", column: "parent_id", op: "eq", value: 2 } as const;
    expect((await db.executor.query(compileRead(service, item, 1, [], scope))).rows).toEqual([]);
    expect((await db.executor.query(compileRead(service, item, 3, [], scope))).rows).toHaveLength(1);
  });

  it("a plain read's cached text binds the key it is given: the same text for every key, each key's own row (decision 1339)", async () => {
    const one = compileRead(service, item, 1);
    const two = compileRead(service, item, 2);
    expect(two.text).toBe(one.text);
    expect([one.values, two.values]).toEqual([["1"], ["2"]]);
    expect(two.layout).toBe(one.layout);
    // The cached text still reads the key it is given, and a scoped or expanded read is built apart.
    expect(JSON.parse((await rowTexts(db.executor, two))[0]!)).toMatchObject({ id: 2 });
    const scope = { kind: "cmp", column: "parent_id", op: "eq", value: 2 } as const;
    expect(compileRead(service, item, 1, [], scope).text).not.toBe(one.text);
    expect(compileRead(service, parent, 1, ["all_items"]).text).toContain("json_agg");
  });
});
