import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import {
  Params,
  compileList,
  compileWhere,
  encodeArray,
  encodeJson,
  encodeScalar,
  escapeLike,
  quoteIdent,
} from "../../runtime/sql/index.js";
import type { TableDescriptor } from "../../runtime/descriptor.js";
import { cmp } from "../../runtime/predicate.js";
import { listQuery, rowObjects } from "./fixture.js";

describe("encoding bind parameters", () => {
  it("encodes scalars as text", () => {
    expect(encodeScalar("a'b")).toBe("a'b");
    expect(encodeScalar(1.5)).toBe("1.5");
    expect(encodeScalar(-7)).toBe("-7");
    expect(encodeScalar(12345678901234567890n)).toBe("12345678901234567890");
    expect(encodeScalar(true)).toBe("true");
    expect(encodeScalar(false)).toBe("false");
    expect(encodeScalar(new Date("2006-02-14T01:02:03.004Z"))).toBe("2006-02-14T01:02:03.004Z");
    expect(() => encodeScalar(new Date("nonsense"))).toThrow(RangeError);
  });

  it("encodes arrays as quoted PostgreSQL array literals and JSON with JSON.stringify", () => {
    expect(encodeArray([])).toBe("{}");
    expect(encodeArray(["a", 'b"c', "d\\e", null, "", "NULL", 1, true])).toBe(
      `{"a","b\\"c","d\\\\e",NULL,"","NULL","1","true"}`,
    );
    expect(encodeArray([{ k: 1 }])).toBe(`{"{\\"k\\":1}"}`);
    expect(encodeJson({ a: [1, "x"], b: null })).toBe(`{"a":[1,"x"],"b":null}`);
  });

  it("numbers placeholders in order of addition and types them, through text only for boolean and bytea", () => {
    const p = new Params();
    expect(p.add("a")).toBe("$1");
    expect(p.typed("2", "integer")).toBe("$2::integer");
    expect(p.typed("x", "text")).toBe("$3::text");
    expect(p.typed(null, '"mood"')).toBe('$4::"mood"');
    expect(p.typed("true", "boolean")).toBe("$5::text::boolean");
    expect(p.typed("\\x00", "bytea")).toBe("$6::text::bytea");
    expect(p.typed("{t}", "boolean[]")).toBe("$7::boolean[]");
    expect(p.values).toEqual(["a", "2", "x", null, "true", "\\x00", "{t}"]);
    expect(p.statement("SELECT 1")).toEqual({ text: "SELECT 1", values: ["a", "2", "x", null, "true", "\\x00", "{t}"] });
  });

  it("quotes identifiers and escapes LIKE metacharacters", () => {
    expect(quoteIdent("title")).toBe(`"title"`);
    expect(quoteIdent(`we"ird`)).toBe(`"we""ird"`);
    expect(quoteIdent("select")).toBe(`"select"`);
    expect(() => quoteIdent("a\u0000b")).toThrow(/NUL/);
    expect(escapeLike("100%_\\x")).toBe("100\\%\\_\\\\x");
  });
});

describe("round trips through the database", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("sql_bind");
    await db.executor.script(`CREATE TABLE "we""ird" ("select" integer PRIMARY KEY, "a""b" text);
      INSERT INTO "we""ird" VALUES (1, 'one'), (2, 'two');`);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("an array literal reads back element for element", async () => {
    const items = ["a", 'b"c', "d\\e", "", "NULL", " spaced ", "{braces}", "x,y", "'; drop table t; --"];
    const p = new Params();
    const arr = p.typed(encodeArray([...items, null]), "text[]");
    const r = await db.executor.query(p.statement(`SELECT array_to_json(${arr})::text AS "a"`));
    expect(JSON.parse(r.rows[0].a ?? "null")).toEqual([...items, null]);
  });

  it("quoted identifiers reach tables and columns whose names need quoting", async () => {
    const weird: TableDescriptor = {
      name: `we"ird`,
      primaryKey: ["select"],
      scoped: false,
      relations: [],
      columns: [
        {
          name: "select",
          sqlType: "integer",
          kind: "integer",
          array: false,
          nullable: false,
          hasDefault: false,
          filterable: true,
          sortable: true,
          searchable: false,
          hidden: false,
          readOnly: false,
          immutable: false,
          softDelete: false,
        },
        {
          name: `a"b`,
          sqlType: "text",
          kind: "text",
          array: false,
          nullable: true,
          hasDefault: false,
          filterable: true,
          sortable: true,
          searchable: true,
          hidden: false,
          readOnly: false,
          immutable: false,
          softDelete: false,
        },
      ],
    };
    const params = new Params();
    expect(compileWhere(weird, cmp(`a"b`, "eq", "two"), "t0", params)).toBe(`"t0"."a""b" = $1::text`);
    const service = { title: "", version: "", securitySchemes: [], tables: [weird] };
    const q = listQuery({ sort: [{ column: "select", descending: true }], search: "O" });
    expect(await rowObjects(db.executor, compileList(service, weird, q).rows)).toEqual([
      { select: 2, 'a"b': "two" },
      { select: 1, 'a"b': "one" },
    ]);
  });
});
