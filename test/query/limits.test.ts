import { describe, expect, it } from "vitest";
import { MAX_LIST_VALUES, MAX_VALUE_BYTES } from "../../runtime/descriptor.js";
import { cmp } from "../../runtime/predicate.js";
import { film, list, problem, where } from "./fixture.js";

const tree = (doc: unknown): [string, string][] => [["filter", JSON.stringify(doc)]];
const maxFilters = film.resource!.limits.maxFilters;

describe("value limits", () => {
  it("takes at most 100 values in one list", () => {
    const ok = Array.from({ length: MAX_LIST_VALUES }, (_, i) => i).join(",");
    expect(where(`length=in.${ok}`)).toEqual(
      cmp(
        "length",
        "in",
        Array.from({ length: MAX_LIST_VALUES }, (_, i) => i),
      ),
    );
    const p = problem(() => list(`length=in.${ok},100`));
    expect(p.location).toBe("query.length");
    expect(p.detail).toContain("101 given");
    expect(
      problem(() => list(tree({ field: "length", op: "in", value: Array.from({ length: 101 }, (_, i) => i) })))
        .location,
    ).toBe("query.filter");
  });

  it("takes at most 256 UTF-8 bytes per value, counting bytes not characters", () => {
    expect(where([["title", "a".repeat(MAX_VALUE_BYTES)]])).toEqual(cmp("title", "eq", "a".repeat(MAX_VALUE_BYTES)));
    expect(problem(() => list([["title", "a".repeat(MAX_VALUE_BYTES + 1)]])).detail).toContain("256 UTF-8 bytes");
    // 128 two-byte characters fit, 129 do not
    expect(where([["title", "é".repeat(128)]])).toEqual(cmp("title", "eq", "é".repeat(128)));
    expect(problem(() => list([["title", "é".repeat(129)]])).location).toBe("query.title");
    expect(problem(() => list([["title", `in.a,${"x".repeat(300)}`]])).detail).toContain("256 UTF-8 bytes");
    expect(problem(() => list(tree({ field: "title", op: "eq", value: "x".repeat(300) }))).location).toBe(
      "query.filter",
    );
    expect(problem(() => list([["attrs", `hasdoc.{"a":"${"x".repeat(300)}"}`]])).detail).toContain("256 UTF-8 bytes");
  });
});

describe("MaxFilters", () => {
  const leaves = (n: number): string => Array.from({ length: n }, (_, i) => `length=neq.${i}`).join("&");

  it("accepts exactly MaxFilters leaf conditions", () => {
    expect(list(leaves(maxFilters)).where).toBeDefined();
  });

  it("refuses one more, once, at the parameter where the count went over", () => {
    const p = problem(() => list(leaves(maxFilters + 3)));
    expect(p.location).toBe("query.length");
    expect(p.detail).toContain(`at most ${maxFilters}`);
  });

  it("counts every leaf inside groups", () => {
    const group = `or=(${Array.from({ length: maxFilters }, (_, i) => `length.eq.${i}`).join(",")})`;
    expect(list(group).where).toBeDefined();
    expect(problem(() => list(`title=x&${group}`)).location).toBe("query.or");
  });

  it("shares the budget between the URL and the filter tree", () => {
    const children = Array.from({ length: 2 }, (_, i) => ({ field: "length", op: "ne", value: i }));
    expect(
      list([...new URLSearchParams(leaves(maxFilters - 2)), ...tree({ op: "and", children })]).where,
    ).toBeDefined();
    const p = problem(() => list([...new URLSearchParams(leaves(maxFilters - 1)), ...tree({ op: "and", children })]));
    expect(p.location).toBe("query.filter");
    expect(p.detail).toContain("too many filter conditions");
  });
});
