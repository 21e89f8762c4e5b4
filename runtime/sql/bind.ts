/**
 * Bind parameters: how a decoded value becomes the text of a `$n`
 * placeholder, and the accumulator that numbers the placeholders of one
 * statement.
 *
 * Every value travels as text (or null) and the SQL types its placeholder
 * (`$1::integer`, `$2::text[]`, `$3::jsonb`), so node-postgres and PGlite
 * see identical parameters whatever the JavaScript type was (spec: "Filter
 * values are always bind parameters").
 */
import type { SqlStatement } from "../exec/executor.js";
import type { JsonValue, ScalarValue } from "../predicate.js";

/**
 * Encodes one scalar as parameter text: strings as is, numbers and bigints
 * through `String`, booleans as `true`/`false`, a `Date` as its ISO 8601 UTC
 * form (`2006-02-14T00:00:00.000Z`, which PostgreSQL reads for `date`,
 * `timestamp` and `timestamptz`). Throws a `RangeError` for an invalid Date.
 */
export function encodeScalar(value: ScalarValue): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** Encodes a JSON value as document text for a `::jsonb` cast. */
export function encodeJson(value: JsonValue): string {
  return JSON.stringify(value);
}

/** An element of an array parameter: a scalar, a JSON document (for `jsonb[]`) or SQL NULL. */
export type ArrayElement = ScalarValue | JsonValue;

function encodeElement(value: ArrayElement): string {
  if (value === null) return "NULL";
  const text = typeof value === "object" && !(value instanceof Date) ? JSON.stringify(value) : encodeScalar(value);
  // Always quoted, so empty strings, spaces, commas, braces and the word NULL stay data.
  return `"${text.replace(/[\\"]/g, (c) => "\\" + c)}"`;
}

/**
 * Encodes a one-dimensional PostgreSQL array literal (PostgreSQL "Array
 * Value Input"): `{"a","b \"c\"",NULL}`. Every element is double-quoted with
 * `\` and `"` backslash-escaped; `null` becomes an unquoted NULL element.
 */
export function encodeArray(values: readonly ArrayElement[]): string {
  return `{${values.map(encodeElement).join(",")}}`;
}

/** Types whose placeholder stays `text` for PGlite's sake (see {@link Params.typed}). */
const THROUGH_TEXT: ReadonlySet<string> = new Set(["boolean", "bool", "bytea"]);

/**
 * Accumulates the bind parameters of one statement and hands out their
 * placeholders `$1`, `$2`, … in order of addition. A placeholder may be
 * used more than once in the text (with the same cast each time).
 */
export class Params {
  private readonly list: (string | null)[] = [];

  /** Adds one parameter (already encoded text, or SQL NULL) and returns its placeholder, e.g. `$3`. */
  add(text: string | null): string {
    this.list.push(text);
    return `$${this.list.length}`;
  }

  /**
   * Adds one parameter without building its placeholder, for a caller
   * whose text already holds it (a bulk create's cached text, decision
   * 1355): the `n`th parameter added is `$n`. Throws nothing.
   */
  push(text: string | null): void {
    this.list.push(text);
  }

  /**
   * Adds one parameter and returns it cast to `sqlType`, e.g. `$3::integer`,
   * so the placeholder itself has that type and PostgreSQL reads the text
   * once, at bind time. Only `boolean` and `bytea` go through text
   * (`$3::text::boolean`): PGlite serializes a parameter by the type the
   * server infers and refuses text for those two, and their input functions
   * are immutable, so the cast is folded once per execution anyway. A cast
   * through text to a type whose input function is only stable (enums,
   * dates, timestamps, arrays) would instead be evaluated again for every
   * row scanned (docs/decisions/0804-typed-placeholders.md). `sqlType` is
   * descriptor data (a type name, quoted where needed), never request text.
   */
  typed(text: string | null, sqlType: string): string {
    const p = this.add(text);
    return THROUGH_TEXT.has(sqlType) ? `${p}::text::${sqlType}` : `${p}::${sqlType}`;
  }

  /** The parameters added so far, in placeholder order (a copy). */
  get values(): (string | null)[] {
    return [...this.list];
  }

  /** Pairs `text` with the parameters added so far. */
  statement(text: string): SqlStatement {
    return { text, values: this.values };
  }
}
