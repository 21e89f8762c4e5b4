import { describe, expect, it } from "vitest";
import { emitSql } from "../../compiler/index.js";
import { parse } from "../../grammar/index.js";
import { check, expectOne, parseOk } from "./helpers.js";

const composite = (ops: string) => `
table film_actor {
  actor_id bigint @filterable
  film_id  bigint @filterable
  @@primary_key([actor_id, film_id])
  resource "/film_actors" { ops = ${ops} }
}
`;

describe("primary keys and item operations (spec: Generated operations; decisions 0205, 1376)", () => {
  it("allows list and create on a composite key", () => {
    expect(check(composite("[list, create]"))).toEqual([]);
  });

  it("allows read, update and delete on a composite key (decision 1376)", () => {
    expect(check(composite("[list, read, update, delete]"))).toEqual([]);
  });

  it("refuses a served table without a primary key, at the resource", () => {
    const src = `
table logs {
  line text
  resource "/logs" { ops = [list] }
}
`;
    expectOne(check(src), src, "missing-primary-key", {
      message: 'Table "logs" is served at "/logs" but has no primary key',
      at: "resource",
    });
  });

  it("accepts an unserved table without a primary key", () => {
    expect(check("table logs {\n  line text\n}\n")).toEqual([]);
  });

  it("refuses a nullable key column", () => {
    const src = "table t {\n  id bigint? @primary_key\n}\n";
    expectOne(check(src), src, "nullable-primary-key", {
      message: 'Primary key column "t.id" cannot be nullable',
      at: "@primary_key",
    });
  });

  it("refuses a key naming an unknown column", () => {
    const src = "table t {\n  a bigint\n  @@primary_key([a, b])\n}\n";
    expectOne(check(src), src, "unknown-column", {
      message: 'The primary key names "b", which is not a column of table "t"',
      at: "t {",
    });
  });
});

describe("a key served by a unique index (decision 1376)", () => {
  const src = (a = "integer") => `
table a_to_b {
  a ${a} @map("A")
  b integer @map("B")
  @@primary_key([a, b], index: "_AToB_AB_unique")
  @@map("_AToB")
  resource "/a-to-b" { ops = [crud, list] }
}
`;

  it("is the table's key, created as that UNIQUE index and no PRIMARY KEY constraint", () => {
    expect(check(src())).toEqual([]);
    const schema = parseOk(src());
    expect(schema.tables[0].primaryKey).toEqual(["a", "b"]);
    expect(schema.tables[0].primaryKeyIndex).toBe("_AToB_AB_unique");
    const ddl = emitSql(schema);
    expect(ddl).toContain('CREATE UNIQUE INDEX "_AToB_AB_unique" ON "_AToB" ("A", "B");');
    expect(ddl).toContain('"A" integer NOT NULL');
    expect(ddl).not.toContain("PRIMARY KEY");
  });

  it("keys only NOT NULL columns, and names its index with a string", () => {
    expect(check(src("integer?")).map((d) => d.code)).toEqual(["nullable-primary-key"]);
    const bad = parse(src().replace('index: "_AToB_AB_unique"', "index: 3"), "t.resource");
    expect(bad.diagnostics.map((d) => d.code)).toContain("invalid-argument");
  });
});
