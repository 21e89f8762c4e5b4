import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const schema = (column: string) => `
enum status { todo done }

table t {
  id bigint @primary_key
  ${column}
}
`;

describe("@default sanity", () => {
  it.each([
    "s status @default(todo)",
    "n integer @default(3)",
    "f numeric @default(1.5)",
    'g numeric @default("2.50")',
    "b boolean @default(false)",
    'x text @default("hi")',
    "y text? @default(null)",
    'z text[] @default("{}")',
    "w timestamptz @default(now())",
    "i bigint @default(identity)",
  ])("accepts %s", (column) => {
    expect(check(schema(column))).toEqual([]);
  });

  it("refuses an enum default that is not a value of the enum", () => {
    const src = schema("s status @default(doing)");
    expectOne(check(src), src, "invalid-default", {
      message: 'Invalid @default on "t.s": "doing" is not a value of enum "status" (todo, done)',
      at: "@default",
    });
  });

  it("refuses a bare name on a column that is not an enum", () => {
    const src = schema("s text @default(todo)");
    expectOne(check(src), src, "invalid-default", {
      message:
        'Invalid @default on "t.s": a bare name is read as an enum value, but the column has type "text"; write sql("…") for an SQL expression',
      at: "@default",
    });
  });

  it.each([
    ["n integer @default(1.5)", "1.5 is not an integer"],
    ['n integer @default("x")', '"x" is not a number'],
    ["b boolean @default(1)", 'a number does not fit type "boolean"'],
    ["x text @default(true)", 'a boolean does not fit type "text"'],
    ["x text @default(null)", "a NOT NULL column cannot default to null"],
    ["x text @default(identity)", 'identity numbers smallint, integer or bigint columns, not "text"'],
  ])("refuses %s", (column, why) => {
    const src = schema(column);
    expectOne(check(src), src, "invalid-default", {
      message: `Invalid @default on "t.${column[0]}": ${why}`,
      at: "@default",
    });
  });
});
