import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileList, compileRead, type CompileOptions } from "../../runtime/sql/index.js";
import type { SortTerm } from "../../runtime/descriptor.js";
import { cmp, raw, type Predicate } from "../../runtime/predicate.js";
import type { ListQuery } from "../../runtime/query/types.js";
import { item, listQuery, loadSchema, parent, rowObjects, rowTexts, service } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_list");
  await loadSchema(db.executor);
});

afterAll(async () => {
  await db.drop();
});

async function list(q: Partial<ListQuery>, scope?: Predicate, options?: CompileOptions) {
  const stmts = compileList(service, item, listQuery(q), scope, options);
  const rows = await rowObjects(db.executor, stmts.rows);
  const count = stmts.count ? (await db.executor.query(stmts.count)).rows[0].n : undefined;
  return { rows, ids: rows.map((r) => r.id), count, stmts };
}

function by(column: string, descending: boolean): SortTerm[] {
  return [
    { column, descending },
    { column: "id", descending },
  ];
}

describe("compileList: ordering and null placement", () => {
  it.each<[string, SortTerm[], number[]]>([
    ["declared nulls last, ascending", by("due", false), [1, 6, 3, 4, 2, 5]],
    ["declared nulls last, descending", by("due", true), [4, 3, 6, 1, 5, 2]],
    ["undeclared: database default, ascending (nulls last)", by("qty", false), [4, 1, 2, 6, 5, 3]],
    ["undeclared: database default, descending (nulls first)", by("qty", true), [3, 5, 6, 2, 1, 4]],
    ["enum in declaration order", by("mood", false), [1, 5, 2, 6, 4, 3]],
    ["numeric by value", by("price", false), [5, 1, 2, 6, 4, 3]],
  ])("%s", async (_name, sort, expected) => {
    expect((await list({ sort })).ids).toEqual(expected);
  });

  // Text order depends on the database's collation: compare with its own ordering of the same values.
  it.each<[string, SortTerm[], string]>([
    ["declared nulls first, ascending", by("note", false), `"note" ASC NULLS FIRST, "id" ASC`],
    ["declared nulls first, descending", by("note", true), `"note" DESC NULLS FIRST, "id" DESC`],
    [
      "computed column by its expression",
      by("summary", true),
      `"title" || ' ' || coalesce("note", '') DESC, "id" DESC`,
    ],
  ])("%s", async (_name, sort, reference) => {
    const ref = await db.executor.query({
      text: `SELECT "id"::text AS "id" FROM "item" ORDER BY ${reference}`,
      values: [],
    });
    const ids = (await list({ sort })).ids;
    expect(ids).toEqual(ref.rows.map((x) => Number(x.id)));
    if (sort[0].column === "note") expect(ids[0]).toBe(2);
  });

  it("writes the declared placement in both directions and nothing when undeclared", () => {
    expect(compileList(service, item, listQuery({ sort: by("due", true) })).rows.text).toContain(
      `ORDER BY "t0"."due" DESC NULLS LAST, "t0"."id" DESC LIMIT`,
    );
    expect(compileList(service, item, listQuery({ sort: by("note", false) })).rows.text).toContain(
      `ORDER BY "t0"."note" ASC NULLS FIRST, "t0"."id" ASC LIMIT`,
    );
    expect(compileList(service, item, listQuery({ sort: by("qty", true) })).rows.text).toContain(
      `ORDER BY "t0"."qty" DESC, "t0"."id" DESC LIMIT`,
    );
  });
});

describe("compileList: paging, count, filter, scope and search", () => {
  it("reads perPage + 1 rows from the offset: the page picked in a subquery, LIMIT literal, OFFSET bound when not 0 (decision 0801)", async () => {
    const first = await list({ perPage: 2, offset: 0 });
    expect(first.ids).toEqual([1, 2, 3]);
    const last = await list({ perPage: 2, offset: 4 });
    expect(last.ids).toEqual([5, 6]);
    expect(first.stmts.rows.text).toMatch(
      / FROM \(SELECT "t0"\.\* FROM "item" AS "t0" ORDER BY .* LIMIT 3\) AS "t0" ORDER BY /,
    );
    expect(first.stmts.rows.text).not.toContain("OFFSET");
    expect(last.stmts.rows.text).toMatch(/ LIMIT 3 OFFSET \$\d+::bigint\) AS "t0" ORDER BY /);
    expect(last.stmts.rows.values.slice(-1)).toEqual(["4"]);
  });

  it("counts the whole filtered set, whatever the page, only when asked", async () => {
    const r = await list({ where: cmp("qty", "gt", 5), perPage: 1, count: true });
    expect(r.ids).toEqual([1, 2]);
    expect(r.count).toBe("4");
    expect((await list({ where: cmp("qty", "gt", 5) })).stmts.count).toBeUndefined();
  });

  it("conjoins the filter and the scope", async () => {
    const scope = cmp("parent_id", "eq", 1);
    expect((await list({}, scope)).ids).toEqual([1, 2, 6]);
    expect((await list({ where: cmp("qty", "eq", 20), count: true }, scope)).count).toBe("2");
    expect((await list({ where: cmp("qty", "eq", 20) }, raw`"title" <> ${"alphabet"}`)).ids).toEqual([2]);
  });

  it.each<[string, string, number[]]>([
    ["a percent sign matches only the literal character", "%", [2]],
    ["an underscore matches only the literal character", "_", [3]],
    ["a backslash matches only the literal character", "\\", [4]],
    ["case-insensitive over every searchable column", "ALPHA", [1, 6]],
    ["searchable nullable column", "seCOND", [4]],
    ["searchable enum through its text", "happy", [1, 5]],
    ["a computed searchable column as its expression", "a f", [1]],
    ["hidden columns are not searched", "s1", []],
    ["computed columns the resource does not compute are not searched", "zzalpha", []],
    ["a hostile string is only a value", "'; drop table item; --", []],
  ])("search: %s", async (_name, text, expected) => {
    const r = await list({ search: text, count: true });
    expect(r.ids).toEqual(expected);
    expect(r.count).toBe(String(expected.length));
    if (text.length > 3) expect(r.stmts.rows.text).not.toContain(text);
    expect(r.stmts.rows.values).toContain(`%${text.replace(/[\\%_]/g, "\\$&")}%`);
  });

  it("an empty search is no condition", async () => {
    expect((await list({ search: "" })).ids).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("a hostile filter value is bound, never part of the SQL text", async () => {
    const hostile = `x'); DELETE FROM item; --`;
    const r = await list({ where: cmp("title", "eq", hostile), search: hostile, count: true });
    expect(r.ids).toEqual([]);
    expect(r.stmts.rows.text).not.toContain("DELETE");
    expect(r.stmts.count?.text).not.toContain("DELETE");
    expect(r.stmts.rows.values).toContain(hostile);
    expect((await list({})).ids).toHaveLength(6);
  });
});

describe("compileList: expansion", () => {
  async function parents(q: Partial<ListQuery>, options?: CompileOptions) {
    const stmts = compileList(service, parent, listQuery(q), undefined, options);
    const rows = await rowObjects(db.executor, stmts.rows);
    const count = stmts.count ? (await db.executor.query(stmts.count)).rows[0].n : undefined;
    return { rows, count, stmts };
  }
  const childIds = (x: unknown) => (x as { items: { id: number }[] }).items.map((c) => c.id);

  it("a page's row objects with expansions are the very text a read of each row returns", async () => {
    for (const [table, expand] of [
      [parent, ["items", "all_items"]],
      [item, ["parent"]],
    ] as const) {
      const page = await rowTexts(db.executor, compileList(service, table, listQuery({ expand: [...expand] })).rows);
      expect(page.length).toBeGreaterThan(2);
      for (const text of page) {
        const id = (JSON.parse(text) as { id: number }).id;
        expect(await rowTexts(db.executor, compileRead(service, table, id, expand))).toEqual([text]);
      }
    }
  });

  it("an unexpanded request joins nothing", () => {
    const s = compileList(service, item, listQuery()).rows.text;
    expect(s).not.toContain(`"parent"`);
    expect(compileList(service, parent, listQuery()).rows.text).not.toContain(`"item"`);
  });

  it("forward: the target row object without hidden columns, null when the reference is null", async () => {
    const r = await list({ expand: ["parent"], select: ["title"] });
    expect(r.rows[0]).toEqual({ id: 1, title: "Alpha", parent: { id: 1, name: "P one" } });
    expect(r.rows[2]).toEqual({ id: 3, title: "under_score", parent: { id: 2, name: "P two" } });
    expect(r.rows[3]).toEqual({ id: 4, title: "back\\slash", parent: null });
    expect(Object.keys(r.rows[0])).toEqual(["id", "title", "parent"]);
  });

  it("inverse: items and has_more, capped at the declared limit, in declared order then key", async () => {
    const r = await parents({ expand: ["items"], count: true });
    expect(r.rows.map((p) => Object.keys(p))).toEqual([
      ["id", "name", "items"],
      ["id", "name", "items"],
      ["id", "name", "items"],
    ]);
    // Parent 1 has items 1 (qty 10), 2 (20), 6 (20): qty DESC then id DESC, capped at 2.
    expect(childIds(r.rows[0].items)).toEqual([6, 2]);
    expect((r.rows[0].items as { has_more: boolean }).has_more).toBe(true);
    // Parent 2 has items 3 (qty NULL, first when descending) and 5.
    expect(r.rows[1].items).toMatchObject({ has_more: false });
    expect(childIds(r.rows[1].items)).toEqual([3, 5]);
    expect(r.rows[2].items).toEqual({ items: [], has_more: false });
    expect(r.count).toBe("3");
  });

  it("inverse children are whole target rows as a read returns them", async () => {
    const r = await parents({ expand: ["all_items"], where: cmp("id", "eq", 1) });
    const children = (r.rows[0].all_items as { items: Record<string, unknown>[]; has_more: boolean }).items;
    expect(children.map((c) => c.id)).toEqual([1, 2, 6]);
    expect(children[0]).toMatchObject({ id: 1, price: "1.50", due: "2006-02-14T00:00:00Z", summary: "Alpha first" });
    expect(children[0]).not.toHaveProperty("secret");
    expect(children[0]).not.toHaveProperty("shout");
  });

  it("the default cap is 50 and the statement reads one child more", async () => {
    await db.executor.script(
      `INSERT INTO "parent" VALUES (9, 'many', NULL);
       INSERT INTO "item" ("id", "parent_id", "title") SELECT g, 9, 'c' || g FROM generate_series(100, 150) AS g;`,
    );
    try {
      const r = await parents({ expand: ["all_items", "items"], where: cmp("id", "eq", 9), count: true });
      const all = r.rows[0].all_items as { items: { id: number }[]; has_more: boolean };
      expect(all.items).toHaveLength(50);
      expect(all.items[0].id).toBe(100);
      expect(all.items[49].id).toBe(149);
      expect(all.has_more).toBe(true);
      expect(childIds(r.rows[0].items)).toEqual([150, 149]);
      expect(Object.keys(r.rows[0])).toEqual(["id", "name", "all_items", "items"]);
      expect(r.count).toBe("1");
      expect(r.stmts.rows.values).toEqual(expect.arrayContaining(["50", "51"]));
      await db.executor.query({ text: `DELETE FROM "item" WHERE "id" = 150`, values: [] });
      const exact = await parents({ expand: ["all_items"], where: cmp("id", "eq", 9) });
      expect(exact.rows[0].all_items).toMatchObject({ has_more: false });
      expect(childIds(exact.rows[0].all_items)).toHaveLength(50);
    } finally {
      await db.executor.script(`DELETE FROM "item" WHERE "parent_id" = 9; DELETE FROM "parent" WHERE "id" = 9;`);
    }
  });

  it("scopeFor confines the expanded table inside the subquery", async () => {
    const scopeFor = (t: string): Predicate | undefined =>
      t === "item" ? cmp("mood", "eq", "happy", "item") : t === "parent" ? cmp("id", "eq", 1) : undefined;
    const r = await parents({ expand: ["all_items"], count: true }, { scopeFor });
    expect(r.rows.map((p) => childIds(p.all_items))).toEqual([[1], [5], []]);
    expect(r.count).toBe("3");
    const f = await list({ expand: ["parent"], select: ["id"] }, undefined, { scopeFor });
    expect(f.rows.map((x) => x.parent)).toEqual([
      { id: 1, name: "P one" },
      { id: 1, name: "P one" },
      null,
      null,
      null,
      { id: 1, name: "P one" },
    ]);
  });

  it("a scope that cannot be requalified fails, naming the relation", () => {
    const rawScope: CompileOptions = { scopeFor: () => raw`"mood" = ${"happy"}` };
    expect(() => compileList(service, parent, listQuery({ expand: ["all_items"] }), undefined, rawScope)).toThrow(
      /all_items/,
    );
    const foreign: CompileOptions = { scopeFor: () => ({ kind: "not", child: cmp("org_id", "eq", 1, "orgs") }) };
    expect(() => compileList(service, item, listQuery({ expand: ["parent"] }), undefined, foreign)).toThrow(
      /expansion "parent".*"orgs"/,
    );
    // Without the expansion the scope of the joined table is never asked for.
    expect(() => compileList(service, item, listQuery(), undefined, foreign)).not.toThrow();
  });

  it("an unknown or non-expandable relation is an error", () => {
    expect(() => compileList(service, parent, listQuery({ expand: ["nope"] }))).toThrow(/"nope"/);
    expect(() => compileList(service, parent, listQuery({ expand: ["locked"] }))).toThrow(/not expandable/);
  });
});
