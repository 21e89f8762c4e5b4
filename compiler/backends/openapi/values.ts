/**
 * The JSON Schema of one column's value, as a response carries it (`row`)
 * or as a write body may send it (`body`). The forms are the wire's
 * (docs/http.md "JSON forms of column types", decisions 0301 and 0400);
 * where they differ between responses and bodies, see
 * docs/decisions/1000-openapi-description.md.
 */
import { docText } from "./markdown.js";
import type { ColumnDescriptor } from "../../../runtime/descriptor.js";
import type { JsonSchema, JsonType } from "./types.js";
import type { Operator } from "../../../runtime/operators.js";

/** Where a value travels: in a response row, or in a create/update body. */
export type ValueUse = "row" | "body";

/** `json` columns are kind `other` (no containment operators) but travel as documents, like jsonb. */
function isDocument(col: ColumnDescriptor): boolean {
  return col.kind === "jsonb" || (col.kind === "other" && baseSqlType(col) === "json");
}

/** The column's SQL type without array brackets, lower-cased. */
export function baseSqlType(col: ColumnDescriptor): string {
  return col.sqlType.toLowerCase().replace(/(\[\])+$/, "");
}

const TIME_PATTERN = "^\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?$";
/** `timetz`: the same with its offset, which the codec requires (docs/decisions/1358-values-through-codecs.md). */
const TIMETZ_PATTERN = "^\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|z|[+-]\\d{2}(:\\d{2}){0,2})$";

/** One value (an array column's element), never null. */
function scalarSchema(col: ColumnDescriptor, use: ValueUse): JsonSchema {
  switch (col.kind) {
    case "text":
      return { type: "string" };
    case "enum":
      return { type: "string", enum: [...(col.enumValues ?? [])] };
    case "uuid":
      return { type: "string", format: "uuid" };
    case "integer": {
      const small = ["smallint", "int2"].includes(baseSqlType(col));
      return small
        ? { type: "integer", format: "int32", minimum: -32768, maximum: 32767 }
        : { type: "integer", format: "int32" };
    }
    case "bigint":
      // Bodies also take the digits as a string, for values beyond 2^53 (decision 0301).
      return use === "row"
        ? { type: "integer", format: "int64" }
        : {
            anyOf: [
              { type: "integer", format: "int64" },
              { type: "string", pattern: "^[+-]?\\d+$" },
            ],
          };
    case "numeric":
      // Exact digits travel as a string; a body may send a JSON number as well (docs/http.md).
      return use === "row" ? { type: "string", format: "decimal" } : { type: ["string", "number"], format: "decimal" };
    case "float": {
      const format = ["real", "float4"].includes(baseSqlType(col)) ? "float" : "double";
      // PostgreSQL's NaN and infinities come out as strings (decision 0400); a body takes finite numbers only.
      return use === "row"
        ? {
            anyOf: [
              { type: "number", format },
              { type: "string", enum: ["NaN", "Infinity", "-Infinity"] },
            ],
          }
        : { type: "number", format };
    }
    case "boolean":
      return { type: "boolean" };
    case "date":
      // Served at UTC midnight as a timestamp; written as a calendar date (decisions 0400, 0301).
      return use === "row"
        ? { type: "string", format: "date-time", description: "a date, at UTC midnight" }
        : { type: "string", format: "date" };
    case "timestamptz":
      return { type: "string", format: "date-time" };
    case "timestamp":
      return {
        type: "string",
        pattern: "^\\d{4}-\\d{2}-\\d{2}([Tt ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?$",
        description: "a timestamp without time zone, e.g. 2020-01-02T03:04:05.5",
      };
    case "time":
      return { type: "string", pattern: baseSqlType(col) === "timetz" ? TIMETZ_PATTERN : TIME_PATTERN };
    case "bytea":
      return use === "row"
        ? { type: "string", contentEncoding: "base64" }
        : { type: "string", description: "base64, or PostgreSQL hex text (\\x…)" };
    case "jsonb":
      return {};
    case "other":
      return isDocument(col) ? {} : { type: "string" };
  }
}

/**
 * The schema of a primary key in the `{id}` path segment: URL text read
 * with the filter codec (decision 0301), so a bigint is plain digits and a
 * date a calendar date. No description: the key may be a hidden column.
 */
export function keySchema(col: ColumnDescriptor): JsonSchema {
  if (col.kind === "bigint") return { type: "integer", format: "int64" };
  const s = scalarSchema(col, "body");
  delete s.description;
  return s;
}

/** Adds JSON `null` to what `s` accepts. A free-form schema (`{}`) already does. */
export function orNull(s: JsonSchema): JsonSchema {
  if (Object.keys(s).length === 0) return s;
  if (s.anyOf) return { ...s, anyOf: [...s.anyOf, { type: "null" }] };
  if (s.type === undefined) return { anyOf: [s, { type: "null" }] };
  const types: JsonType[] = Array.isArray(s.type) ? [...s.type, "null"] : [s.type, "null"];
  const out: JsonSchema = { ...s, type: types };
  if (s.enum) out.enum = [...s.enum, null];
  return out;
}

/**
 * The schema of `col`'s value: arrays as JSON arrays of the element form
 * (bodies refuse null elements, decision 0301), `null` added on a nullable
 * column, the column's `///` comment as the description.
 */
export function valueSchema(col: ColumnDescriptor, use: ValueUse): JsonSchema {
  const element = scalarSchema(col, use);
  let s: JsonSchema = col.array ? { type: "array", items: element } : element;
  if (col.nullable) s = orNull(s);
  if (col.doc !== undefined) {
    const own = s.description;
    const doc = docText(col.doc);
    s = { ...s, description: own === undefined ? doc : `${doc}\n\n(${own})` };
  }
  return s;
}

/** URL text of one valid value per kind, for filter examples; `undefined` where no literal is known to cast. */
function exampleText(col: ColumnDescriptor): string | undefined {
  switch (col.kind) {
    case "text":
      return "example";
    case "enum":
      return col.enumValues?.[0];
    case "uuid":
      return "00000000-0000-4000-8000-000000000000";
    case "integer":
    case "bigint":
      return "1";
    case "numeric":
      return "1.50";
    case "float":
      return "0.5";
    case "boolean":
      return "true";
    case "date":
      return "2024-01-01";
    case "timestamptz":
      return "2024-01-01T00:00:00Z";
    case "timestamp":
      return "2024-01-01T00:00:00";
    case "time":
      return "09:00";
    case "bytea":
      return "3q2+7w==";
    case "jsonb":
      return undefined;
    case "other":
      return OTHER_EXAMPLES[baseSqlType(col)];
  }
}

/** Literals PostgreSQL casts for the `other` types it is likely to meet; the rest get no example. */
const OTHER_EXAMPLES: Record<string, string> = {
  interval: "1 day",
  money: "1.00",
  inet: "127.0.0.1",
  cidr: "10.0.0.0/8",
  macaddr: "08:00:2b:01:02:03",
};

/** A leaf of an example filter: operator and URL value text (none for the null tests). */
export interface ExampleLeaf {
  op: Operator;
  value?: string;
}

/**
 * One filter the column accepts, as the documentation page shows it and
 * the tests send it: `has` on an array, `hasdoc` on a document, an
 * ordering operator on numbers and times, `eq` elsewhere, and `notnull`
 * on a nullable column whose type has no known literal. `undefined` when
 * no valid filter is known (a non-nullable extension type).
 */
export function exampleLeaf(col: ColumnDescriptor): ExampleLeaf | undefined {
  if (col.kind === "jsonb" && !col.array) return { op: "hasdoc", value: "{}" };
  const text = exampleText(col);
  if (text === undefined) return col.nullable ? { op: "notnull" } : undefined;
  if (col.array) return { op: "has", value: text };
  const ordered = ["integer", "bigint", "numeric", "float", "date", "timestamptz", "timestamp", "time"].includes(
    col.kind,
  );
  return { op: ordered ? "gte" : "eq", value: text };
}

/** The leaf as a URL filter value: `gte.1`, `notnull`. */
export function leafText(leaf: ExampleLeaf): string {
  return leaf.value === undefined ? leaf.op : `${leaf.op}.${leaf.value}`;
}
