/**
 * Sample values of every type a column can have, for the type-by-surface
 * matrix (test/values/matrix.test.ts): each built-in type of the language's
 * one table (language/types.ts `BUILTIN_TYPES`), an enum and a domain, and
 * the array of each. A built-in type added to that table without samples
 * here fails the matrix's first test, so a new type joins the matrix.
 *
 * `a` and `b` are two distinct values as a write body carries them, `a`
 * sorting first; `url` gives their URL text where it is not the JSON
 * string itself. What a type cannot do in PostgreSQL (no equality, no
 * btree order, no GIN operator class for its arrays) is said with the
 * reason, and the matrix skips those cells naming it.
 */
import { BUILTIN_TYPES } from "../../language/types.js";
import { writeListItem } from "../../runtime/operators.js";

/** A JSON scalar as a write body or a `?filter=` tree carries it. */
export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

/** The samples of one scalar type and what PostgreSQL lets it do. */
export interface Sample {
  a: Json;
  b: Json;
  /** A third value, for a column that cannot be null (a serial is NOT NULL): what "neither a nor b" is. */
  c?: Json;
  /** No equality operator: it cannot be a unique key, filtered by `eq` or sorted. The reason. */
  noEquality?: string;
  /** No btree order (a unique key still works when there is a hash or other equality): the reason. */
  noOrder?: string;
  /** Its array cannot be filtered (no GIN operator class for the element type): the reason. */
  noArray?: string;
  /** No array of it exists in PostgreSQL: the reason (the matrix makes no table for it). */
  noArrayType?: string;
  /** Not available on the embedded database (PGlite): the reason. */
  noPglite?: string;
}

const NO_JSON_EQUALITY = "json has no equality operator (use jsonb)";
const NO_XML_EQUALITY = "xml has no equality operator";
const NO_SERIAL_ARRAY = "PostgreSQL has no array of a serial type";
const NO_POINT_EQUALITY = "point has no btree equality (only ~=)";

/** Samples by canonical built-in type name. */
export const BUILTIN_SAMPLES: Readonly<Record<string, Sample>> = {
  smallint: { a: -3, b: 32767 },
  integer: { a: -5, b: 2147483647 },
  bigint: { a: 1, b: "9007199254740993" },
  smallserial: { a: 1, b: 2, c: 3, noArrayType: NO_SERIAL_ARRAY },
  serial: { a: 1, b: 2, c: 3, noArrayType: NO_SERIAL_ARRAY },
  bigserial: { a: 1, b: "9007199254740993", c: "9007199254740999", noArrayType: NO_SERIAL_ARRAY },
  numeric: { a: "1.50", b: "12345678901234567890.125" },
  real: { a: 1.5, b: 2.25 },
  "double precision": { a: 0.1, b: 1e300 },
  text: { a: 'a, b (c) "d"', b: "z" },
  varchar: { a: "a,b", b: "b" },
  character: { a: "a", b: "b" },
  citext: { a: "Apple", b: "banana" },
  boolean: { a: false, b: true },
  date: { a: "2024-01-02", b: "2024-03-04" },
  timestamptz: {
    a: "2024-01-02T03:04:05.123456Z",
    b: "2024-05-06T07:08:09+02:00",
  },
  timestamp: { a: "2024-01-02T03:04:05.5", b: "2024-05-06T07:08:09" },
  time: { a: "03:04:05", b: "13:14:15.5" },
  timetz: { a: "03:04:05+02:00", b: "13:14:15+00:00" },
  uuid: {
    a: "0b4e1c7a-51a6-4f6e-9d3f-3c1f6f0a9a01",
    b: "F0B4E1C7-51A6-4F6E-9D3F-3C1F6F0A9A02",
  },
  // jsonb sorts an object with fewer keys first.
  jsonb: { a: { k: 2 }, b: { k: [1, "x"], n: null } },
  bytea: { a: "AAEC", b: "/w==" },
  json: { a: { k: 1 }, b: [1, 2], noEquality: NO_JSON_EQUALITY, noArray: NO_JSON_EQUALITY },
  interval: { a: "1 day", b: "P1Y2M" },
  money: { a: "1.50", b: "20.00" },
  inet: { a: "10.0.0.1", b: "192.168.0.0/16" },
  cidr: { a: "10.0.0.0/8", b: "192.168.0.0/16" },
  macaddr: { a: "08:00:2b:01:02:03", b: "08:00:2b:01:02:04" },
  // Ordered as their btree orders them (not as their text).
  tsvector: { a: "rat", b: "a fat cat" },
  tsquery: { a: "cat", b: "fat & rat" },
  xml: {
    a: "<a/>",
    b: "<b>x</b>",
    noEquality: NO_XML_EQUALITY,
    noArray: NO_XML_EQUALITY,
    noPglite: "PGlite is built without libxml",
  },
  oid: { a: "12345", b: "67890" },
  point: {
    a: "(1,2)",
    b: "(3,4)",
    noEquality: NO_POINT_EQUALITY,
    noArray: NO_POINT_EQUALITY,
  },
  bit: { a: "0", b: "1" },
  varbit: { a: "101", b: "11" },
};

/** The enum and domain the matrix declares, and their samples. */
export const USER_TYPES = {
  mood: {
    declaration: "enum mood { sad happy }",
    sample: { a: "sad", b: "happy" } satisfies Sample,
  },
  positive: {
    declaration: `domain positive bigint @check("VALUE > 0")`,
    sample: { a: 7, b: "9007199254740995" } satisfies Sample,
  },
} as const;

/** Canonical built-in type names, in the language's table order. */
export function builtinTypeNames(): string[] {
  return [...new Set(BUILTIN_TYPES.values())];
}

/** One column type of the matrix: a scalar or the array of one. */
export interface MatrixType {
  /** As the test names it: `bigint`, `bigint[]`, `enum mood`. */
  label: string;
  /** As the schema writes it. */
  type: string;
  /** The table's name in the schema. */
  table: string;
  array: boolean;
  sample: Sample;
  /** Values as a write body carries them. */
  a: Json;
  b: Json;
}

/** Every type of the matrix, scalars and arrays, skipping none (cells say what a type cannot do). */
export function matrixTypes(): MatrixType[] {
  const scalars: [string, string, Sample][] = [
    ...builtinTypeNames().map((n): [string, string, Sample] => [n, n, BUILTIN_SAMPLES[n]!]),
    ["enum mood", "mood", USER_TYPES.mood.sample],
    ["domain positive", "positive", USER_TYPES.positive.sample],
  ];
  const out: MatrixType[] = [];
  for (const [label, type, sample] of scalars) {
    const slug = type.replace(/\W+/g, "_");
    out.push({
      label,
      type,
      table: `m_${slug}`,
      array: false,
      sample,
      a: sample.a,
      b: sample.b,
    });
    if (sample.noArrayType) continue;
    out.push({
      label: `${label}[]`,
      type: `${type}[]`,
      table: `m_${slug}_arr`,
      array: true,
      sample,
      // Two distinct arrays, the first sorting first: [a] < [a, b].
      a: [sample.a],
      b: [sample.a, sample.b],
    });
  }
  return out;
}

/** A scalar's URL text: strings as they are, numbers and booleans by `String`, documents as JSON. */
export function urlText(v: Json): string {
  if (typeof v === "string") return v;
  if (v === null || typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** A list value in the URL grammar, `(x,"y,z")`. */
export function urlList(values: readonly Json[]): string {
  return `(${values.map((v) => writeListItem(urlText(v))).join(",")})`;
}
