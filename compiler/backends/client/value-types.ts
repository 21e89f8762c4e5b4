/**
 * TypeScript types of column values in the typed client: as served in rows,
 * as accepted in create and update bodies, and as written in filters. The
 * row and body forms are the wire forms of docs/http.md and
 * docs/decisions/0209-json-value-types.md; the filter forms follow the
 * operator vocabulary of the runtime (spec: Operators by column type) and
 * docs/decisions/1051-typed-client.md.
 */
import type { ColumnDescriptor } from "../../../runtime/descriptor.js";
import { operatorsFor } from "../../../runtime/query/operators.js";
import { WIRE_TYPE } from "../ts-text.js";

/** `json` has kind `other` (no containment operators) but travels as a document. */
function isJson(column: ColumnDescriptor): boolean {
  return column.kind === "other" && column.sqlType.replace(/(\[\])+$/, "") === "json";
}

function enumUnion(column: ColumnDescriptor): string | undefined {
  if (column.kind !== "enum" || !column.enumValues || column.enumValues.length === 0) return undefined;
  return column.enumValues.map((v) => JSON.stringify(v)).join(" | ");
}

function arrayOf(element: string): string {
  return element.includes(" | ") ? `(${element})[]` : `${element}[]`;
}

/** True for a column whose body and filter values may be given as a `Date` (`date`, `timestamptz`). */
export function takesDate(column: ColumnDescriptor): boolean {
  return column.kind === "date" || column.kind === "timestamptz";
}

/**
 * A column's value type without `| null`: as served (`read`), as an
 * action's input accepts it (`write`: numeric and bigint also as the other
 * JSON form), or as a create, update or upsert body accepts it (`body`:
 * `write`, and a `Date` on `date` and `timestamptz` columns, which the
 * client writes in the column's wire form as a filter does: `writeBody` of
 * the client core).
 */
export function valueType(column: ColumnDescriptor, use: "read" | "write" | "body"): string {
  let scalar = enumUnion(column) ?? (isJson(column) ? "JsonValue" : WIRE_TYPE[column.kind]);
  if (use !== "read" && column.kind === "numeric") scalar = "string | number";
  if (use !== "read" && column.kind === "bigint") scalar = "number | string";
  if (use === "body" && takesDate(column)) scalar = "string | Date";
  return column.array ? arrayOf(scalar) : scalar;
}

/** The type of one value in a filter on this column (an array column's element). */
function filterScalar(column: ColumnDescriptor): string {
  const union = enumUnion(column);
  if (union) return union;
  switch (column.kind) {
    case "integer":
    case "float":
      return "number";
    case "bigint":
      return "number | bigint";
    case "numeric":
      return "string | number";
    case "boolean":
      return "boolean";
    case "date":
    case "timestamptz":
      return "string | Date";
    case "jsonb":
      // Only an array's elements get here (a document column has its own filter type): each is a document.
      return "JsonValue";
    default:
      return "string";
  }
}

/**
 * The filter type of a filterable column: which operators it admits and
 * with which values, mirroring `operatorsFor` of the runtime. Null tests
 * only on nullable columns, the document vocabulary on jsonb, the
 * containment vocabulary on arrays, the text operators on text and enums.
 */
export function filterType(column: ColumnDescriptor): string {
  const ops = operatorsFor(column);
  const scalar = filterScalar(column);
  let type: string;
  if (column.array) type = `ArrayFilter<${scalar}>`;
  else if (column.kind === "jsonb") type = "DocumentFilter";
  else if (ops.includes("contains")) type = `TextFilter<${scalar}>`;
  else if (ops.includes("gt")) type = `OrderFilter<${scalar}>`;
  else type = `EqualityFilter<${scalar}>`;
  return column.nullable ? `Nullable<${type}>` : type;
}

/**
 * How the client writes the column's filter values in a URL (the
 * `ColumnCodec` of the client core), or undefined for `plain`.
 */
export function filterCodec(column: ColumnDescriptor): string | undefined {
  if (column.kind === "jsonb") return column.array ? "document[]" : "document";
  const base = column.kind === "date" ? "date" : column.kind === "timestamptz" ? "instant" : "plain";
  const codec = column.array ? `${base}[]` : base;
  return codec === "plain" ? undefined : codec;
}
