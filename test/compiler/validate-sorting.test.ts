import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const schema = (sort: string, order = "[title]") => `
table lists {
  id    bigint @primary_key
  title text @sortable
  resource "/lists" { ops = [list] }
}

table items {
  id      bigint @primary_key
  list_id bigint @ref(list, lists) @filterable @inverse(items, expandable, order: ${order})
  title   text @sortable
  rank    integer
  @@index([list_id])
  resource "/items" { ops = [list]  default_sort = ${sort} }
}
`;

describe("declared orderings (spec: DefaultSort, Expansion rule 5)", () => {
  it("accepts sortable terms in default_sort and in an inverse order", () => {
    expect(check(schema("[-title]", "[-title]"))).toEqual([]);
  });

  it("refuses a default_sort term that is not a column", () => {
    const src = schema("[-nope]");
    expectOne(check(src), src, "unknown-sort-column", {
      message: '"default_sort" names "nope", which is not a column of table "items"',
      at: "-nope",
    });
  });

  it("refuses a default_sort term that is not sortable", () => {
    const src = schema("[rank]");
    expectOne(check(src), src, "sort-column-not-sortable", {
      message: '"default_sort" term "items.rank" is not @sortable',
      at: "rank]",
    });
  });

  it("refuses a term named twice", () => {
    const src = schema("[title, -title]");
    expectOne(check(src), src, "duplicate-sort-term", {
      message: '"default_sort" names "title" more than once',
      at: "-title]",
    });
  });

  it("checks inverse order terms against the child table", () => {
    const src = schema("[title]", "[rank, position]");
    const ds = check(src);
    expectOne(ds, src, "sort-column-not-sortable", {
      message: 'The order of inverse "items" term "items.rank" is not @sortable',
      at: "rank, position",
    });
    expectOne(ds, src, "unknown-sort-column", {
      message: 'The order of inverse "items" names "position", which is not a column of table "items"',
      at: "position]",
    });
  });
});
