import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

const schema = (column: string, settings = "", extra = "") => `
table notes {
  id    bigint @primary_key
  title text
  ${column}
  ${extra}
  resource "/notes" { ops = [list, read, create] ${settings} }
}
`;

describe("computed columns (spec: Column capabilities, computed; decision 0206)", () => {
  it("accepts a searchable computed column selected by the resource", () => {
    expect(check(schema(`shout text @computed("upper(title)") @searchable`, "computed = [shout]"))).toEqual([]);
  });

  it.each([
    ["filterable", "filters on expressions are not supported"],
    ["sortable", "ordering by expressions is not supported"],
    ["unique", "it is not stored"],
    ["soft_delete", "it is never written"],
  ])("refuses @computed with @%s", (attr, why) => {
    const src = schema(`shout text? @computed("upper(title)") @${attr}`);
    expectOne(check(src), src, "computed-conflict", {
      message: `Computed column "notes.shout" cannot be @${attr}: ${why}`,
      at: `@${attr}`,
    });
  });

  it("refuses a default on a computed column", () => {
    const src = schema(`shout text @computed("upper(title)") @default("x")`);
    expectOne(check(src), src, "computed-conflict", {
      message: 'Computed column "notes.shout" cannot be @default: it is never written',
      at: "@default",
    });
  });

  it("refuses an index over a computed column", () => {
    const src = schema(`shout text @computed("upper(title)")`, "", "@@index([shout])");
    expectOne(check(src), src, "computed-not-stored", {
      message: '@@index names computed column "notes.shout", which is not stored',
      at: "@@index",
    });
  });

  it("refuses computed = [...] naming a stored or an unknown column", () => {
    const src = schema(`shout text @computed("upper(title)")`, "computed = [title, nope]");
    const ds = check(src);
    expectOne(ds, src, "not-computed", {
      message: '"computed" names "notes.title", which is not a @computed column',
      at: "[title, nope]",
    });
    expectOne(ds, src, "unknown-computed-column", {
      message: '"computed" names "nope", which is not a column of table "notes"',
      at: "[title, nope]",
    });
  });

  it("refuses a hidden computed column", () => {
    const src = schema(`shout text @computed("upper(title)") @hidden`);
    expectOne(check(src), src, "hidden-conflict", {
      message: 'Computed column "notes.shout" cannot be hidden: it exists only to be served',
      at: "@hidden",
    });
  });
});

describe("computed columns in table constraints", () => {
  it("refuses @@unique and @@primary_key over a computed column", () => {
    const src = `
table t {
  a     bigint
  shout text @computed("'x'")
  @@primary_key([a, shout])
  @@unique([shout])
}
`;
    const ds = check(src).filter((d) => d.code === "computed-not-stored");
    expect(ds.map((d) => d.message)).toEqual([
      '@@unique names computed column "t.shout", which is not stored',
      'The primary key names computed column "t.shout", which is not stored',
    ]);
  });
});
