import { describe, expect, it } from "vitest";
import { check, expectOne } from "./helpers.js";

describe("names and types", () => {
  it("accepts indexes and uniques over existing columns", () => {
    const src =
      "table t {\n  id bigint @primary_key\n  a text\n  b text\n  @@index([a, b], using: btree)\n  @@unique([a, b])\n}\n";
    expect(check(src)).toEqual([]);
  });

  it("refuses an index naming an unknown column", () => {
    const src = "table t {\n  id bigint @primary_key\n  @@index([nope])\n}\n";
    expectOne(check(src), src, "unknown-column", {
      message: '@@index names "nope", which is not a column of table "t"',
      at: "@@index",
    });
  });

  it("refuses an unknown index method", () => {
    const src = "table t {\n  id bigint @primary_key\n  a text\n  @@index([a], using: fancy)\n}\n";
    expectOne(check(src), src, "unknown-index-method", {
      message: 'Index method "fancy" is not one of btree, hash, gist, spgist, gin, brin',
      at: "@@index",
    });
  });

  it("refuses an enum sharing its name with a table", () => {
    const src = "enum t { a b }\n\ntable t {\n  id bigint @primary_key\n}\n";
    expectOne(check(src), src, "duplicate-name", {
      message: 'Table "t" has the name of an earlier enum',
      at: "t {",
      nth: 2,
    });
  });

  it("refuses a domain named like a built-in type", () => {
    const src = "domain int4 bigint\n";
    expectOne(check(src), src, "type-shadows-builtin", {
      message: 'Domain "int4" has the name of the built-in type "integer"',
      at: "domain",
    });
  });

  it("refuses @searchable on a column that is not text", () => {
    const src = "table t {\n  id bigint @primary_key @searchable\n  code varchar(3) @searchable\n}\n";
    expectOne(check(src), src, "searchable-not-text", {
      message: '"t.id" has type "bigint"; only text columns can be @searchable',
      at: "@searchable",
    });
  });
});

describe("types outside the language (decision 0201)", () => {
  it("passes an extension type through with a warning at the type", () => {
    const src = "table t {\n  id   bigint @primary_key\n  path ltree\n}\n";
    expectOne(check(src), src, "unknown-type", {
      message:
        'Type "ltree" of "t.path" is neither a known PostgreSQL type nor a declared enum or domain; it is passed through as written and served as text',
      at: "ltree",
      severity: "warning",
    });
  });

  it("is silent for built-in, enum and domain types", () => {
    const src = "enum e { a }\ndomain d text\ntable t {\n  id bigint @primary_key\n  x e\n  y d\n  z int4\n}\n";
    expect(check(src)).toEqual([]);
  });
});
