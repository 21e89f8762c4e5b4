/**
 * The JSON forms of dates and timestamps (decision 0400), now written with
 * one `to_json` instead of two `to_char` calls (decision 0803), equal the
 * `to_char` formulation on many values: fractions of every length, whole
 * seconds, years before 1 AD and after 9999, infinities, arrays, under a
 * session DateStyle and time zone far from the defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ColumnDescriptor } from "../../runtime/descriptor.js";
import { outputExpr } from "../../runtime/sql/output.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase("temporal_output");
  await db.executor.script(`
    CREATE TABLE t (n integer PRIMARY KEY, tz timestamptz, ts timestamp, d date, tzs timestamptz[], ds date[]);
    INSERT INTO t (n, tz)
      SELECT i, '2022-09-10 16:46:03.905795+00'::timestamptz + (i * interval '1 second 137 microseconds') * (i % 7)
      FROM generate_series(1, 3000) AS i;
    INSERT INTO t (n, tz) SELECT 3000 + ord, v FROM unnest(ARRAY[
      '0044-03-15 10:00:00.5+00 BC', '4713-01-01 00:00:00+00 BC', '0001-01-01 00:00:00+00',
      '9999-12-31 23:59:59.999999+00', '10000-01-01 00:00:00.00001+00', '2000-02-29 12:00:00.1+00',
      '1999-12-31 23:59:59.000001+00', 'infinity', '-infinity', NULL]::timestamptz[]) WITH ORDINALITY AS u(v, ord);
    UPDATE t SET ts = tz AT TIME ZONE 'UTC', d = (tz AT TIME ZONE 'UTC')::date, tzs = ARRAY[tz, NULL, tz], ds = ARRAY[(tz AT TIME ZONE 'UTC')::date];
  `);
});

afterAll(async () => {
  await db?.drop();
});

function column(name: string, kind: ColumnDescriptor["kind"], array = false): ColumnDescriptor {
  return {
    name,
    sqlType: kind,
    kind,
    array,
    nullable: true,
    hasDefault: false,
    filterable: false,
    sortable: false,
    searchable: false,
    hidden: false,
    readOnly: false,
    immutable: false,
    softDelete: false,
  };
}

/** The forms as decision 0400 first wrote them, with `to_char`. */
const clock = (x: string): string =>
  `to_char(${x}, 'YYYY-MM-DD"T"HH24:MI:SS') || rtrim(rtrim(to_char(${x}, '.US'), '0'), '.')`;
const finite = (x: string, f: string): string => `CASE WHEN isfinite(${x}) THEN ${f} ELSE ${x}::text END`;
const REFERENCE = {
  tz: finite(`"t0"."tz"`, `${clock(`("t0"."tz" AT TIME ZONE 'UTC')`)} || 'Z'`),
  ts: finite(`"t0"."ts"`, clock(`"t0"."ts"`)),
  d: finite(`"t0"."d"`, `to_char("t0"."d"::timestamp, 'YYYY-MM-DD"T"HH24:MI:SS') || 'Z'`),
};

describe("date and timestamp JSON forms", () => {
  it("equal the to_char formulation for every value, whatever the session DateStyle and time zone", async () => {
    const exprs = [
      `(${outputExpr(column("tz", "timestamptz"), "t0")}) IS NOT DISTINCT FROM (${REFERENCE.tz})`,
      `(${outputExpr(column("ts", "timestamp"), "t0")}) IS NOT DISTINCT FROM (${REFERENCE.ts})`,
      `(${outputExpr(column("d", "date"), "t0")}) IS NOT DISTINCT FROM (${REFERENCE.d})`,
    ];
    const counts = await db.executor.transaction(async (tx) => {
      await tx.query({ text: "SET LOCAL TimeZone = 'America/St_Johns'", values: [] });
      await tx.query({ text: "SET LOCAL DateStyle = 'SQL, DMY'", values: [] });
      const r = await tx.query({
        text: `SELECT count(*)::text AS "all", ${exprs.map((e, i) => `count(*) FILTER (WHERE ${e})::text AS "same${i}"`).join(", ")} FROM "t" AS "t0"`,
        values: [],
      });
      return r.rows[0];
    });
    expect(counts).toEqual({ all: "3010", same0: "3010", same1: "3010", same2: "3010" });
  });

  it("writes the documented forms: trimmed fractions, no era, infinities as text, arrays element by element", async () => {
    const r = await db.executor.query({
      text: `SELECT json_build_array(${outputExpr(column("tz", "timestamptz"), "t0")}, ${outputExpr(column("d", "date"), "t0")}, ${outputExpr(column("tzs", "timestamptz", true), "t0")}, ${outputExpr(column("ds", "date", true), "t0")})::text AS "j" FROM "t" AS "t0" WHERE "t0"."n" IN (3001, 3006, 3008) ORDER BY "t0"."n"`,
      values: [],
    });
    expect(r.rows.map((x) => JSON.parse(x.j ?? "null"))).toEqual([
      [
        "0044-03-15T10:00:00.5Z",
        "0044-03-15T00:00:00Z",
        ["0044-03-15T10:00:00.5Z", null, "0044-03-15T10:00:00.5Z"],
        ["0044-03-15T00:00:00Z"],
      ],
      [
        "2000-02-29T12:00:00.1Z",
        "2000-02-29T00:00:00Z",
        ["2000-02-29T12:00:00.1Z", null, "2000-02-29T12:00:00.1Z"],
        ["2000-02-29T00:00:00Z"],
      ],
      ["infinity", "infinity", ["infinity", null, "infinity"], ["infinity"]],
    ]);
  });
});
