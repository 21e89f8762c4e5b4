import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";
import { resolveLimits } from "../../compiler/descriptor.js";
import { parseOk } from "./helpers.js";

const schema = (settings: string, limit = "") => `
table notes {
  id   bigint @primary_key
  body text
  resource "/notes" {
    ops = [list]
    ${settings}
  }
}

table marks {
  id      bigint @primary_key
  note_id bigint @ref(note, notes) @filterable @inverse(marks${limit})
  @@index([note_id])
}
`;

describe("ceilings (spec: Resource declaration, Limits)", () => {
  it("accepts zero and positive ceilings", () => {
    const src = schema(
      "default_page_size = 0\n max_page_size = 50\n max_filters = 3\n max_sort_terms = 0\n max_offset = 10",
      ", limit: 5",
    );
    expect(check(src)).toEqual([]);
  });

  it.each(["default_page_size", "max_page_size", "max_filters", "max_sort_terms", "max_offset", "max_batch"])(
    "refuses a negative %s at its value",
    (key) => {
      const src = schema(`${key} = -1`);
      expectOne(check(src), src, "negative-ceiling", {
        message: `"${key}" must not be negative (got -1); 0 takes the package default`,
        at: "-1",
      });
    },
  );

  it("refuses a default page size above the declared max_page_size", () => {
    const src = schema("max_page_size = 10\n default_page_size = 20");
    expectOne(check(src), src, "default-page-size-above-max", {
      message: '"default_page_size" (20) exceeds the page-size ceiling in force (10)',
      at: "20",
    });
  });

  it("refuses a default page size above the package page-size ceiling", () => {
    const src = schema("default_page_size = 500");
    expectOne(check(src), src, "default-page-size-above-max", {
      message: '"default_page_size" (500) exceeds the page-size ceiling in force (200)',
      at: "500",
    });
  });

  it("refuses an inverse limit below 1", () => {
    const src = schema("", ", limit: 0");
    expectOne(check(src), src, "invalid-inverse-limit", {
      message: 'The limit of inverse "marks" on "marks.note_id" must be a positive integer (got 0)',
      at: "@inverse",
    });
  });

  it("resolves an undeclared default page size under a lowered ceiling (decision 0202)", () => {
    const lowered = parseOk(schema("max_page_size = 10")).tables[0].resource!;
    expect(resolveLimits(lowered)).toEqual({
      defaultPageSize: 10,
      maxPageSize: 10,
      maxFilters: 24,
      maxSortTerms: 4,
      maxOffset: 100000,
      maxBatch: 1000,
    });
    const zero = parseOk(schema("max_offset = 0\n default_page_size = 7")).tables[0].resource!;
    expect(resolveLimits(zero)).toMatchObject({ defaultPageSize: 7, maxOffset: 100000 });
    const batch = parseOk(schema("max_batch = 50")).tables[0].resource!;
    expect(resolveLimits(batch).maxBatch).toBe(50);
  });
});
