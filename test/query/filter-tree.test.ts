import { describe, expect, it } from "vitest";
import { and, cmp, not, or } from "../../runtime/predicate.js";
import { FILM_FILTERABLE, list, problem, problems, where } from "./fixture.js";

const tree = (doc: unknown): [string, string][] => [["filter", JSON.stringify(doc)]];

describe("?filter= JSON tree", () => {
  it("reads leaves with JSON values of the column's type", () => {
    expect(where(tree({ field: "length", op: "gt", value: 100 }))).toEqual(cmp("length", "gt", 100));
    expect(where(tree({ field: "length", op: "gt", value: "100" }))).toEqual(cmp("length", "gt", 100));
    expect(where(tree({ field: "rental_rate", op: "lt", value: 2.99 }))).toEqual(cmp("rental_rate", "lt", "2.99"));
    expect(where(tree({ field: "active", op: "eq", value: true }))).toEqual(cmp("active", "eq", true));
    expect(where(tree({ field: "title", op: "neq", value: "a,b" }))).toEqual(cmp("title", "ne", "a,b"));
  });

  it("takes JSON arrays for list values and any JSON value for hasdoc", () => {
    expect(where(tree({ field: "rating", op: "in", value: ["G", "PG"] }))).toEqual(cmp("rating", "in", ["G", "PG"]));
    expect(where(tree({ field: "length", op: "between", value: [60, 90] }))).toEqual(
      cmp("length", "between", [60, 90]),
    );
    expect(where(tree({ field: "special_features", op: "eq", value: [] }))).toEqual(cmp("special_features", "eq", []));
    expect(where(tree({ field: "attrs", op: "hasdoc", value: { a: [1] } }))).toEqual(
      cmp("attrs", "hasdoc", { a: [1] }),
    );
    expect(where(tree({ field: "attrs", op: "hasdoc", value: null }))).toEqual(cmp("attrs", "hasdoc", null));
    expect(where(tree({ field: "length", op: "isnull" }))).toEqual(cmp("length", "isnull"));
  });

  it("reads and/or groups and not with one child", () => {
    const doc = {
      op: "or",
      children: [
        {
          op: "and",
          children: [
            { field: "length", op: "gt", value: 100 },
            { field: "rating", op: "eq", value: "G" },
          ],
        },
        { op: "not", children: [{ field: "title", op: "like", value: "A%" }] },
      ],
    };
    expect(where(tree(doc))).toEqual(
      or(and(cmp("length", "gt", 100), cmp("rating", "eq", "G")), not(cmp("title", "like", "A%"))),
    );
  });

  it("refuses a not with a second child", () => {
    const p = problem(() =>
      list(
        tree({
          op: "not",
          children: [
            { field: "length", op: "gt", value: 1 },
            { field: "length", op: "lt", value: 9 },
          ],
        }),
      ),
    );
    expect(p.location).toBe("query.filter");
    expect(p.detail).toContain("exactly one child");
  });

  it("spells the same set as ?not=(a,b) with its not over an and", () => {
    const url = where("not=(rating.eq.R,length.gt.120)");
    const json = where(
      tree({
        op: "not",
        children: [
          {
            op: "and",
            children: [
              { field: "rating", op: "eq", value: "R" },
              { field: "length", op: "gt", value: 120 },
            ],
          },
        ],
      }),
    );
    expect(json).toEqual(url);
  });

  it("conjoins the tree with the URL filters", () => {
    expect(where([["title", "x"], ...tree({ field: "length", op: "gt", value: 5 })])).toEqual(
      and(cmp("title", "eq", "x"), cmp("length", "gt", 5)),
    );
  });

  it("shares the nesting limit: three levels pass, a fourth is refused", () => {
    const leaf = { field: "length", op: "gt", value: 1 };
    const nest = (ops: string[]): unknown => ops.reduceRight<unknown>((child, op) => ({ op, children: [child] }), leaf);
    expect(where(tree(nest(["and", "or", "not"])))).toEqual(not(cmp("length", "gt", 1)));
    const p = problem(() => list(tree(nest(["and", "or", "not", "and"]))));
    expect(p.location).toBe("query.filter");
    expect(p.detail).toContain("nested too deeply");
  });

  it("refuses malformed JSON at query.filter", () => {
    const p = problem(() => list([["filter", "{field:"]]));
    expect(p).toMatchObject({ location: "query.filter", value: "{field:" });
    expect(p.detail).toContain("not valid JSON");
  });

  it("refuses malformed nodes, naming where they are", () => {
    const items = problems(() =>
      list(
        tree({
          op: "and",
          children: [
            [1],
            { field: "length", op: "gt", value: 1, extra: true },
            { field: 3, op: "eq", value: 1 },
            { field: "length" },
            { op: "or", children: [] },
            { field: "nope", op: "eq", value: 1 },
            { field: "length", op: "gt", value: "x" },
            { field: "length", op: "in", value: 5 },
            { field: "title", op: "eq" },
            { field: "length", op: "isnull", value: 3 },
            { field: "title", op: "like", value: 5 },
          ],
        }),
      ),
    );
    expect(items.every((i) => i.location === "query.filter")).toBe(true);
    const details = items.map((i) => i.detail);
    expect(details[0]).toContain("$.children[0]");
    expect(details[1]).toContain("unknown member extra");
    expect(details[2]).toContain("field must be a string");
    expect(details[3]).toContain("op must be a string");
    expect(details[4]).toContain("non-empty children");
    expect(details[5]).toContain("unknown column nope");
    expect(items[5].allowed).toEqual(FILM_FILTERABLE);
    expect(details[6]).toContain("invalid value for column length");
    expect(details[7]).toContain("expected a JSON array");
    expect(details[8]).toContain("value is required");
    expect(details[9]).toContain("takes no value");
    expect(details[10]).toContain("expected a JSON string");
    expect(items).toHaveLength(11);
  });
});
