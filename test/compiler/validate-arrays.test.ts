import { describe, expect, it } from "vitest";
import { check, expectOne, withCode } from "./helpers.js";

const table = (column: string, extra = "") => `
table posts {
  id   bigint @primary_key
  ${column}
  ${extra}
  resource "/posts" { ops = [list] }
}
`;

describe("array columns (spec: Column capabilities, Array)", () => {
  it("accepts a filterable array column with a GIN index leading with it", () => {
    const ds = check(table("tags text[] @filterable", "@@index([tags], using: gin)"));
    expect(ds).toEqual([]);
  });

  it("refuses @sortable on an array column, at the attribute", () => {
    const src = table("tags text[] @sortable");
    expectOne(check(src), src, "array-sortable", {
      message: 'Array column "posts.tags" cannot be @sortable',
      at: "@sortable",
    });
  });

  it("refuses @searchable on an array column, at the attribute", () => {
    const src = table("tags text[] @searchable");
    expectOne(check(src), src, "array-searchable", {
      message: 'Array column "posts.tags" cannot be @searchable',
      at: "@searchable",
    });
  });

  it("refuses a filterable array without a GIN index, at @filterable", () => {
    const src = table("tags text[] @filterable", "@@index([tags])");
    expectOne(check(src), src, "array-filterable-without-gin", {
      message: 'Filterable array column "posts.tags" needs a GIN index: add @@index([tags], using: gin)',
      at: "@filterable",
    });
  });

  it("does not count a GIN index led by another column", () => {
    const src = table("tags text[] @filterable\n  other text[]", "@@index([other, tags], using: gin)");
    expect(withCode(check(src), "array-filterable-without-gin")).toHaveLength(1);
  });

  it("reports all three problems of one column at once", () => {
    const src = table("tags text[] @filterable @sortable @searchable");
    expect(check(src).map((d) => d.code)).toEqual([
      "array-filterable-without-gin",
      "array-sortable",
      "array-searchable",
    ]);
  });

  it("treats a column of a domain over an array type as an array", () => {
    const src = `domain tag_list text[]\n${table("tags tag_list @sortable")}`;
    expect(withCode(check(src), "array-sortable")).toHaveLength(1);
  });
});
