import { describe, expect, it } from "vitest";
import { check, expectOne, withCode } from "./helpers.js";

const schema = (column: string) => `
table teams {
  id   bigint @primary_key
  resource "/teams" { ops = [list] }
}

table people {
  id      bigint @primary_key
  team_id bigint @ref(team, teams) @filterable
  ${column}
  @@index([team_id])
  resource "/people" { ops = [list, read, create, update] }
}
`;

describe("hidden columns (spec: guarantee 2; decision 0204)", () => {
  it("accepts hidden with read-only, immutable, default and unique", () => {
    expect(check(schema('secret text @hidden @read_only @immutable @unique @default("x")'))).toEqual([]);
  });

  it.each(["filterable", "sortable", "searchable"])("refuses hidden with @%s, at that attribute", (attr) => {
    const src = schema(`secret text @hidden @${attr}`);
    expectOne(check(src), src, "hidden-conflict", {
      message: `Hidden column "people.secret" cannot be @${attr}`,
      at: `@${attr}`,
      // team_id's @filterable comes first
      nth: attr === "filterable" ? 2 : 1,
    });
  });

  it("refuses an expandable reference on a hidden column but accepts a plain one", () => {
    const src = schema("boss_id bigint? @hidden @ref(boss, teams, expandable)\n  @@index([boss_id])");
    expectOne(check(src), src, "hidden-conflict", {
      message: 'Hidden column "people.boss_id" cannot carry an expandable relation: expanding "boss" would reveal it',
      at: "@ref(boss",
    });
    expect(check(schema("boss_id bigint? @hidden @ref(boss, teams)\n  @@index([boss_id])"))).toEqual([]);
  });

  it("refuses an inverse on a hidden column", () => {
    const src = schema("boss_id bigint? @hidden @ref(boss, teams) @inverse(bossed)\n  @@index([boss_id])");
    expectOne(check(src), src, "hidden-conflict", {
      message:
        'Hidden column "people.boss_id" cannot carry inverse "bossed": its collection would be keyed by a hidden value',
      at: "@inverse",
    });
  });

  it("refuses a hidden primary key", () => {
    const src = `
table t {
  id bigint @primary_key @hidden
}
`;
    expectOne(check(src), src, "hidden-conflict", {
      message: 'Primary key column "t.id" cannot be hidden: the key is served with every row',
      at: "@hidden",
    });
  });

  it("reports every conflicting attribute of one column", () => {
    const ds = check(schema("secret text @hidden @filterable @sortable @searchable"));
    expect(withCode(ds, "hidden-conflict")).toHaveLength(3);
  });
});
