import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const schema = (columns: string) => `
table tasks {
  id bigint @primary_key
  ${columns}
}
`;

describe("soft-delete columns (spec: Generated operations rule 2; decision 0207)", () => {
  it("accepts one nullable timestamptz or timestamp marker", () => {
    expect(check(schema("deleted_at timestamptz? @soft_delete"))).toEqual([]);
    expect(check(schema("deleted_at timestamp? @soft_delete"))).toEqual([]);
  });

  it("refuses a second marker", () => {
    const src = schema("deleted_at timestamptz? @soft_delete\n  removed_at timestamptz? @soft_delete");
    expectOne(check(src), src, "multiple-soft-delete", {
      message: 'Table "tasks" already has soft-delete column "deleted_at"',
      at: "@soft_delete",
      nth: 2,
    });
  });

  it("refuses a NOT NULL marker", () => {
    const src = schema("deleted_at timestamptz @soft_delete");
    expectOne(check(src), src, "soft-delete-not-nullable", {
      message: 'Soft-delete column "tasks.deleted_at" must be nullable (write "timestamptz?"): NULL marks a live row',
      at: "@soft_delete",
    });
  });

  it("refuses a boolean marker", () => {
    const src = schema("deleted boolean? @soft_delete");
    expectOne(check(src), src, "soft-delete-type", {
      message: 'Soft-delete column "tasks.deleted" must be a timestamptz or timestamp, not "boolean"',
      at: "@soft_delete",
    });
  });
});
