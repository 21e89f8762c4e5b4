/**
 * Row objects written in Node from their members (decision 0805: scalar
 * members as one `array_to_json` array of texts, JSON members as columns of
 * their own) are the very text `row_to_json` writes for the same row with
 * the forms of decision 0400, which expansions and the version tag a
 * conditional write compares in SQL still use. Compared byte for byte on
 * values chosen to hit every form, on the SQL fixture (computed columns
 * included) and on every Pagila table; and for the rows writes and the
 * locked read of an action return (decision 1351), against the tag.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TableDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { quoteIdent } from "../../runtime/sql/ident.js";
import { encodeRow, extraElementsOf, memberSelect, tableMembers } from "../../runtime/sql/members.js";
import { tableRow } from "../../runtime/sql/output.js";
import { compileLockRow } from "../../runtime/sql/read.js";
import { rowTag } from "../../runtime/sql/row.js";
import { compileUpdate, compileUpdateWhere } from "../../runtime/sql/write.js";
import { rowVersionTag } from "../../runtime/http/conditional.js";
import { cmp } from "../../runtime/predicate.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { setupPagila, type PagilaContext } from "../pagila/setup.js";
import { column, loadSchema, service as fixtureService } from "./fixture.js";

/** Compares the two writers on every row of `table` (3000 at most); returns how many rows were compared. */
async function compare(db: Executor, table: TableDescriptor): Promise<number> {
  const { list, layout } = memberSelect(tableMembers(table, "t0"));
  const json = tableRow(table, "t0").json;
  const order = table.primaryKey.map((k) => `"t0".${quoteIdent(k)}`).join(", ");
  const r = await db.query({
    text: `SELECT ${list}, ${json}::text AS "expected" FROM ${quoteIdent(table.name)} AS "t0" ORDER BY ${order} LIMIT 3000`,
    values: [],
  });
  for (const row of r.rows) expect(encodeRow(row, layout)).toBe(row.expected);
  return r.rows.length;
}

const ODD: TableDescriptor = {
  name: "odd",
  primaryKey: ["n"],
  relations: [],
  scoped: false,
  columns: [
    column("n", "integer", "integer"),
    column("t", "text", "text"),
    column("c", "bpchar(6)", "text"),
    column("f", "text", "float"),
    column("r", "text", "float"),
    column("b", "text", "bigint"),
    column("num", "text", "numeric"),
    column("ok", "boolean", "boolean"),
    column("e", "text", "enum"),
    column("u", "text", "uuid"),
    column("tm", "text", "time"),
    column("ttz", "text", "time"),
    column("iv", "text", "other"),
    column("js", "text", "other"),
    column("ip", "text", "other"),
    column("doc", "text", "jsonb"),
    column("by", "text", "bytea"),
    column("d", "text", "date"),
    column("ts", "text", "timestamp"),
    column("tz", "text", "timestamptz"),
    column("ta", "text[]", "text", { array: true }),
    column("fa", "float8[]", "float", { array: true }),
    column("na", "numeric[]", "numeric", { array: true }),
    column("ea", "text[]", "enum", { array: true }),
    column("da", "date[]", "date", { array: true }),
  ],
};

describe("row objects written from their members equal row_to_json's", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("sql_members");
    await loadSchema(db.executor);
    await db.executor.script(`
      CREATE TYPE "odd mood" AS ENUM ('plain', 'with "quote"', 'back\\slash', 'ünï', 'null');
      CREATE TABLE odd (
        n integer PRIMARY KEY, t text, c character(6), f double precision, r real, b bigint, num numeric,
        ok boolean, e "odd mood", u uuid, tm time, ttz timetz, iv interval, js json, ip inet, doc jsonb,
        "by" bytea, d date, ts timestamp, tz timestamptz, ta text[], fa double precision[], na numeric[],
        ea "odd mood"[], da date[]
      );
      INSERT INTO odd VALUES
        (1, 'plain', 'ab', 1.5, 0.1, 9223372036854775807, 12345678901234567890.000100, true, 'plain',
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '12:34:56.789', '12:34:56+05:30', '1 day 02:03:04', '{"a": [1, 2.50]}',
         '192.168.0.1/24', '{"big": 123456789012345678901234567890, "s": "x"}', '\\x00ff', '2024-02-29',
         '2024-02-29 23:59:59.000001', '2024-02-29 23:59:59.5+02', '{a,"b c",NULL,""}', '{1.5,NaN,NULL}', '{1.10,NULL}',
         '{plain,"with \\"quote\\""}', '{2024-02-29,NULL,infinity}'),
        (2, E'quote " backslash \\\\ tab \\t newline \\n bell \\x07 unit \\x1f end \\\\', 'x', 'NaN', 'Infinity', -1,
         'NaN', false, 'with "quote"', NULL, '00:00', '23:59:59.999999-12', '-1 mons', 'null', '::1', '[]',
         '\\x', '-infinity', 'infinity', '-infinity', '{}', '{}', '{}', '{}', '{}'),
        (3, 'ünï 𝄞 emoji 😀 / slash', '      ', '-Infinity', '-0', 0, '0.0', NULL, 'back\\slash', NULL, NULL, NULL,
         NULL, '"str"', NULL, '"s"', NULL, '0044-03-15 BC', '0044-03-15 10:00:00.5 BC', '10000-01-01 00:00:00.00001+00',
         NULL, NULL, NULL, NULL, NULL),
        (4, 'null', NULL, 1e300, 1e-30, NULL, NULL, NULL, 'null', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (5, '\\"', '"', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
         NULL, NULL, NULL, NULL, NULL, NULL, NULL);
      -- Arrays are elements of j: brackets, commas and quotes inside their strings, and two dimensions.
      UPDATE odd SET ta = '{{"a]b","[c,d"},{"e\\"f",NULL}}' WHERE n = 4;
      UPDATE odd SET ta = '{"]",",","[","\\\\"}', ea = '{"with \\"quote\\""}' WHERE n = 5;
    `);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("on values chosen for every form: floats that are not numbers, escapes, padding, eras, infinities, arrays", async () => {
    const { layout } = memberSelect(tableMembers(ODD, "t0"));
    const arrays = layout.members.filter((m) => "form" in m && m.form === "array").map((m) => m.name);
    expect(arrays).toEqual(["ta", "fa", "na", "ea"]);
    expect(await compare(db.executor, ODD)).toBe(5);
  });

  it("on the SQL fixture, computed columns included", async () => {
    let rows = 0;
    for (const table of fixtureService.tables) rows += await compare(db.executor, table);
    expect(rows).toBeGreaterThan(5);
  });

  it("past json_build_array's 100 arguments, with the rest of the members as columns of their own", async () => {
    const kinds = WIDE.columns.map((_, i) => WIDE_KINDS[i % WIDE_KINDS.length]);
    await db.executor.script(`
      CREATE TABLE wide (${kinds.map((k, i) => `c${i} ${k.sql}${i === 0 ? " PRIMARY KEY" : ""}`).join(", ")});
      INSERT INTO wide VALUES (${kinds.map((k) => k.value).join(", ")});
      INSERT INTO wide (c0) VALUES (8);
    `);
    const { layout } = memberSelect(tableMembers(WIDE, "t0"));
    expect(layout.members.filter((m) => "column" in m)).toHaveLength(30);
    expect(await compare(db.executor, WIDE)).toBe(2);
  });

  it("a write's RETURNING and an action's locked read give the text of a read, whose digest is the tag SQL computes", async () => {
    const expected = async (n: number): Promise<{ json: string; tag: string }> => {
      const r = await db.executor.query({
        text: `SELECT ${tableRow(ODD, "t0").json}::text AS "json", ${rowTag(ODD, "t0")} AS "tag" FROM "odd" AS "t0" WHERE "t0"."n" = $1::integer`,
        values: [String(n)],
      });
      return { json: r.rows[0]!.json!, tag: r.rows[0]!.tag! };
    };
    for (const n of [1, 2, 3, 4, 5]) {
      // The boolean is written as it is, so every other member keeps the value chosen for its form.
      const before = (
        await db.executor.query({ text: `SELECT ok::text AS ok FROM odd WHERE n = $1::integer`, values: [String(n)] })
      ).rows[0]!.ok;
      const update = compileUpdate(fixtureService, ODD, n, { ok: before === null ? null : before === "true" });
      const written = await db.executor.query(update);
      expect(written.rowCount).toBe(1);
      const want = await expected(n);
      expect(encodeRow(written.rows[0]!, update.layout)).toBe(want.json);
      const lock = compileLockRow(ODD, n, undefined);
      const locked = await db.executor.transaction(async (tx) => (await tx.query(lock)).rows[0]!);
      expect(encodeRow(locked, lock.layout)).toBe(want.json);
      expect(rowVersionTag(encodeRow(locked, lock.layout))).toBe(want.tag);
    }
    const many = compileUpdateWhere(fixtureService, ODD, { ok: null }, { where: cmp("n", "gte", 4) });
    const rows = (await db.executor.query(many)).rows.map((r) => encodeRow(r, many.layout)).sort();
    expect(rows).toEqual([(await expected(4)).json, (await expected(5)).json].sort());
  });

  it("reads extra elements (sort keys) back unescaped, NULL as null", async () => {
    const extra = [`"t0"."t"`, `NULL::text`, `'a\\"b'`].map((sql) => ({ sql }));
    const { list, layout } = memberSelect(tableMembers(ODD, "t0"), extra);
    const r = await db.executor.query({ text: `SELECT ${list} FROM "odd" AS "t0" WHERE "t0"."n" = 2`, values: [] });
    const direct = await db.executor.query({ text: `SELECT t FROM odd WHERE n = 2`, values: [] });
    expect(extraElementsOf(r.rows[0], layout)).toEqual([direct.rows[0].t, null, 'a\\"b']);
  });

  it("reads a sort key from the member that holds it: the very text of its ::text, on every kind that can", async () => {
    const names = ["n", "t", "f", "r", "b", "num", "ok", "e", "u", "tm", "ttz"];
    const extra = names.map((name) => ({ sql: `("t0".${quoteIdent(name)})::text`, column: name }));
    const { list, layout } = memberSelect(tableMembers(ODD, "t0"), [...extra, { sql: `'from k'` }]);
    expect(list).not.toContain(`("t0"."num")::text`);
    expect(layout.extras.filter((e) => "k" in e)).toHaveLength(1);
    const texts = names.map((n) => `(${quoteIdent(n)})::text AS ${quoteIdent(n)}`).join(", ");
    const r = await db.executor.query({
      text: `SELECT ${list}, ${texts} FROM "odd" AS "t0" ORDER BY "t0"."n"`,
      values: [],
    });
    expect(r.rows).toHaveLength(5);
    for (const row of r.rows) {
      expect(extraElementsOf(row, layout)).toEqual([...names.map((n) => row[n] as string | null), "from k"]);
    }
  });
});

/** Kinds cycled through the columns of {@link WIDE}, with a value of each. */
const WIDE_KINDS = [
  { kind: "integer", sql: "integer", value: "-7" },
  { kind: "numeric", sql: "numeric", value: "'Infinity'" },
  { kind: "timestamptz", sql: "timestamptz", value: "'0044-03-15 10:00:00.25 BC'" },
  { kind: "text", sql: "text", value: `'a "b" \\\\ c'` },
] as const;

/** 130 members: more than the 100 arguments json_build_array takes, so the last ones are columns of their own. */
const WIDE: TableDescriptor = {
  name: "wide",
  primaryKey: ["c0"],
  relations: [],
  scoped: false,
  columns: Array.from({ length: 130 }, (_, i) => column(`c${i}`, "text", WIDE_KINDS[i % WIDE_KINDS.length].kind)),
};

describe("row objects written from their members equal row_to_json's on Pagila", () => {
  let ctx: PagilaContext;
  beforeAll(async () => {
    ctx = await setupPagila("sql_members_pagila");
  }, 120_000);
  afterAll(async () => {
    await ctx?.drop();
  });

  it("on every served table", async () => {
    let rows = 0;
    for (const table of ctx.service.tables.filter((t) => t.resource !== undefined)) {
      rows += await compare(ctx.db.executor, table);
    }
    expect(rows).toBeGreaterThan(10_000);
  });
});
