import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileList, encodeRow, extraElementsOf } from "../../runtime/sql/index.js";
import type { SortTerm } from "../../runtime/descriptor.js";
import { cmp } from "../../runtime/predicate.js";
import { item, listQuery, loadSchema, rowObjects, service } from "./fixture.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("sql_seek");
  await loadSchema(db.executor);
  // Duplicates and NULLs in every sort column, so ties and null placement are exercised.
  await db.executor.script(`
    INSERT INTO item (id, parent_id, title, note, qty, price, mood, due, at)
    SELECT g, 1 + g % 3, CASE WHEN g % 4 = 0 THEN 'Alpha' ELSE 't' || (g % 5) END,
           CASE WHEN g % 3 = 0 THEN NULL ELSE 'n' || (g % 2) END,
           CASE WHEN g % 5 = 0 THEN NULL ELSE g % 4 END,
           CASE WHEN g % 6 = 0 THEN NULL ELSE (g % 3) + 0.5 END,
           (ARRAY['happy', 'sad', 'meh', NULL])[1 + g % 4]::mood,
           CASE WHEN g % 2 = 0 THEN NULL ELSE date '2020-01-01' + (g % 3) END,
           CASE WHEN g % 7 = 0 THEN NULL ELSE timestamptz '2020-01-01 00:00:00.000001+00' + (g % 2) * interval '1 microsecond' END
    FROM generate_series(10, 40) AS g;`);
});

afterAll(async () => {
  await db.drop();
});

function withKey(terms: SortTerm[]): SortTerm[] {
  const last = terms.length > 0 ? terms[terms.length - 1].descending : false;
  return terms.some((t) => t.column === "id") ? terms : [...terms, { column: "id", descending: last }];
}

async function all(sort: SortTerm[]): Promise<number[]> {
  const rows = await rowObjects(db.executor, compileList(service, item, listQuery({ sort, perPage: 1000 })).rows);
  return rows.map((x) => x.id as number);
}

/** Pages through with keyset seeks of `perPage` rows. */
async function byCursor(sort: SortTerm[], perPage: number): Promise<number[]> {
  const out: number[] = [];
  let after: (string | null)[] | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const stmts = compileList(service, item, listQuery({ sort, perPage }), undefined, { after, sortKeys: true });
    const rows = (await db.executor.query(stmts.rows)).rows;
    const page = rows.slice(0, perPage);
    out.push(...page.map((x) => (JSON.parse(encodeRow(x, stmts.rows.layout)) as { id: number }).id));
    if (rows.length <= perPage) return out;
    after = extraElementsOf(page[page.length - 1], stmts.rows.layout);
  }
  throw new Error("paging did not end");
}

describe("keyset seek", () => {
  it.each<[string, SortTerm[]]>([
    ["key ascending", [{ column: "id", descending: false }]],
    ["key descending", [{ column: "id", descending: true }]],
    ["NOT NULL text", [{ column: "title", descending: false }]],
    ["declared nulls last, ascending", [{ column: "due", descending: false }]],
    ["declared nulls last, descending", [{ column: "due", descending: true }]],
    ["declared nulls first, ascending", [{ column: "note", descending: false }]],
    ["declared nulls first, descending", [{ column: "note", descending: true }]],
    ["undeclared nulls, ascending", [{ column: "qty", descending: false }]],
    ["undeclared nulls, descending", [{ column: "qty", descending: true }]],
    ["enum", [{ column: "mood", descending: true }]],
    ["numeric", [{ column: "price", descending: false }]],
    ["timestamptz with microseconds", [{ column: "at", descending: true }]],
    ["computed", [{ column: "summary", descending: false }]],
    [
      "mixed directions",
      [
        { column: "qty", descending: true },
        { column: "title", descending: false },
      ],
    ],
    [
      "three nullable terms",
      [
        { column: "due", descending: false },
        { column: "note", descending: true },
        { column: "qty", descending: false },
      ],
    ],
  ])("%s: pages by cursor give the same rows as one page", async (_name, terms) => {
    const sort = withKey(terms);
    const expected = await all(sort);
    expect(expected).toHaveLength(37);
    expect(await byCursor(sort, 4)).toEqual(expected);
    expect(await byCursor(sort, 1)).toEqual(expected);
  });

  it("is one row comparison when every key is NOT NULL and shares a direction", () => {
    const up = compileList(
      service,
      item,
      listQuery({ sort: withKey([{ column: "title", descending: false }]) }),
      undefined,
      {
        after: ["Alpha", "4"],
      },
    );
    expect(up.rows.text).toContain(`WHERE (("t0"."title", "t0"."id") > ($1::text, $2::integer)) ORDER BY`);
    expect(up.rows.values.slice(0, 2)).toEqual(["Alpha", "4"]);
    const down = compileList(service, item, listQuery({ sort: [{ column: "id", descending: true }] }), undefined, {
      after: ["4"],
    });
    expect(down.rows.text).toContain(`WHERE (("t0"."id") < ($1::integer))`);
  });

  it("applies to the rows only: the count is the whole filtered set", async () => {
    const q = listQuery({
      sort: [{ column: "id", descending: false }],
      perPage: 2,
      count: true,
      where: cmp("id", "lt", 20),
    });
    const stmts = compileList(service, item, q, undefined, { after: ["15"] });
    const rows = (await rowObjects(db.executor, stmts.rows)).map((x) => x.id);
    expect(rows).toEqual([16, 17, 18]);
    expect((await db.executor.query(stmts.count ?? { text: "", values: [] })).rows[0].n).toBe("16");
  });

  it("refuses a cursor whose length does not match the ordering", () => {
    expect(() => compileList(service, item, listQuery(), undefined, { after: ["1", "2"] })).toThrow(/2 values/);
  });
});
