/**
 * Columns as SQL: finding a column of a descriptor, referring to it under a
 * FROM alias, and binding a value cast to the column's type. Shared by the
 * predicate compiler, the row output builder and the write statements.
 */
import { holdsDocuments, type ColumnDescriptor, type TableDescriptor } from "../descriptor.js";
import type { JsonValue, ScalarValue } from "../predicate.js";
import { encodeArray, encodeJson, encodeScalar, type ArrayElement, type Params } from "./bind.js";
import { qualified } from "./ident.js";

/** A value a column can be compared with or written to: a scalar, a list, a JSON document or SQL NULL. */
export type ColumnValue = ScalarValue | ScalarValue[] | JsonValue;

/**
 * The descriptor of column `name` of `table`. Throws a plain `Error` naming
 * both when the table has no such column: names reach this compiler already
 * validated (runtime/query), so a miss is a programming error, not a 400.
 */
export function findColumn(table: TableDescriptor, name: string): ColumnDescriptor {
  const col = table.columns.find((c) => c.name === name);
  if (!col) throw new Error(`relation "${table.name}" has no column "${name}"`);
  return col;
}

/**
 * SQL for the column's value on the row aliased `alias`: `"t0"."title"`, or
 * for a computed column its expression in parentheses. The expression is
 * trusted schema text naming its table's columns unqualified, so it resolves
 * against the innermost FROM item, which is always the column's own table
 * (docs/decisions/0401-list-statement-shape.md).
 */
export function columnRef(col: ColumnDescriptor, alias: string): string {
  return col.computed !== undefined ? `(${col.computed})` : qualified(alias, col.dbName ?? col.name);
}

/** The element type of an array column (`text[]` gives `text`); the type itself for a scalar column. */
export function elementType(col: ColumnDescriptor): string {
  return col.array ? col.sqlType.replace(/\s*\[\s*\]\s*$/, "") : col.sqlType;
}

/** The array type over the column's element type: `integer` gives `integer[]`. */
export function listType(col: ColumnDescriptor): string {
  return `${elementType(col)}[]`;
}

/** A value for an error message: its JSON, or `String` where JSON has no form for it (a bigint inside). */
function shown(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

function isScalar(v: unknown): v is ScalarValue {
  return (
    typeof v === "string" ||
    typeof v === "number" ||
    typeof v === "bigint" ||
    typeof v === "boolean" ||
    v instanceof Date
  );
}

/**
 * Binds one scalar of the column's element type and returns the SQL for it,
 * `$n::type`. A `bytea` value is PostgreSQL's own input text (`\x0a1b`, as
 * runtime/query decodes it). Throws when `value` is not a scalar.
 */
export function bindElement(col: ColumnDescriptor, value: unknown, params: Params): string {
  return params.typed(encodeElement(col, value), elementType(col));
}

/** The text of one scalar of the column's element type; throws when `value` is not a scalar. */
function encodeElement(col: ColumnDescriptor, value: unknown): string {
  if (!isScalar(value)) throw new Error(`column "${col.name}" expects a single value, got ${shown(value)}`);
  return encodeScalar(value);
}

/**
 * Binds a list of scalars as one array parameter of the element type:
 * `$n::integer[]` (used by `in`, `nin`, `hasany`, …). Throws when an item is
 * not a scalar.
 */
export function bindList(col: ColumnDescriptor, values: readonly unknown[], params: Params): string {
  const items = values.map((v) => {
    if (!isScalar(v)) throw new Error(`column "${col.name}" expects a list of values, got ${shown(v)}`);
    return v;
  });
  return params.typed(encodeArray(items), listType(col));
}

/**
 * A whole value for the column as the text of its stored form: SQL NULL
 * (`null`) for `null`; a JSON document for a `jsonb` or `json` column (so a JSON
 * string or number is a document too); an array literal for an array
 * column (a JSON document per element for `jsonb[]` and `json[]`, as its text); a scalar's text
 * otherwise. Its placeholder is always cast to the column's `sqlType`
 * ({@link bindColumnValue}), so a caller that writes the placeholders
 * itself (a bulk create's cached text, decision 1355) binds this.
 * @throws Error when the shape does not fit the column
 */
export function encodeColumnValue(col: ColumnDescriptor, value: ColumnValue | null): string | null {
  if (value === null) return null;
  if (col.array) {
    if (!Array.isArray(value)) throw new Error(`column "${col.name}" expects an array, got ${shown(value)}`);
    return encodeArray(value as ArrayElement[]);
  }
  if (holdsDocuments(col)) return encodeJson(value as JsonValue);
  return encodeElement(col, value);
}

/**
 * Binds a whole value for the column as its stored form
 * ({@link encodeColumnValue}) and returns its placeholder cast to the
 * column's type (`$3::integer`).
 * @throws Error when the shape does not fit the column
 */
export function bindColumnValue(col: ColumnDescriptor, value: ColumnValue | null, params: Params): string {
  return params.typed(encodeColumnValue(col, value), col.sqlType);
}
