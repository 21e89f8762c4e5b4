/**
 * Value codecs: a column's value from URL text (filters, keys) and from a
 * JSON value (write bodies, `?filter=` trees). The rules per type are in
 * docs/decisions/0301-value-codecs.md; the results are what the predicate
 * tree and the SQL compiler expect (runtime/predicate.ts `ScalarValue`):
 * integers as numbers, bigints as `bigint`, numerics as their decimal text,
 * dates and timestamps as canonical text, uuids lower-cased.
 *
 * On an array column each codec decodes one element (the column's `kind` is
 * the element kind), except {@link decodeJson}, which takes the whole array.
 */
import { holdsDocuments, type ColumnDescriptor } from "../descriptor.js";
import type { JsonValue, ScalarValue } from "../predicate.js";
import { ProblemError, problem } from "../problem.js";
import { echoValue } from "./problems.js";
import { isDate, readDate, isTime, readTimestamp, readTimeWithZone } from "./temporal.js";

/** A decoded value, or why it was refused (`allowed` lists the enum values of an enum column). */
export type Decoded<T> = { ok: true; value: T } | { ok: false; detail: string; allowed?: readonly string[] };

/** A column value in a write body: scalar, array, JSON document, or SQL NULL. */
export type WriteValue = ScalarValue | ScalarValue[] | JsonValue | null;

const ok = <T>(value: T): Decoded<T> => ({ ok: true, value });
const fail = (detail: string, allowed?: readonly string[]): Decoded<never> =>
  allowed ? { ok: false, detail, allowed } : { ok: false, detail };

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BYTEA_HEX = /^\\x(?:[0-9a-fA-F]{2})*$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** `smallint` columns (and domains declared over it keep their own name, so they fall back to 32 bits). */
function integerRange(col: ColumnDescriptor): [number, number] {
  const base = col.sqlType.toLowerCase().replace(/\[\]$/, "");
  return base === "smallint" || base === "int2" ? [-32768, 32767] : [-2147483648, 2147483647];
}

function checkInteger(col: ColumnDescriptor, n: number): Decoded<number> {
  const [min, max] = integerRange(col);
  return n >= min && n <= max ? ok(n) : fail(`expected an integer from ${min} to ${max}`);
}

function checkBigint(n: bigint): Decoded<bigint> {
  return n >= INT64_MIN && n <= INT64_MAX ? ok(n) : fail(`expected an integer from ${INT64_MIN} to ${INT64_MAX}`);
}

/**
 * PostgreSQL's `numeric` holds at most 131072 digits before the decimal
 * point and 16383 after it (its documentation, "Arbitrary Precision
 * Numbers"), and reads no exponent from 2^30 − 1 on: past them it refuses
 * the value only when the statement runs, so they are refused here, where
 * the refusal can name the field.
 */
const NUMERIC_MAX_DIGITS_BEFORE = 131072n;
const NUMERIC_MAX_SCALE = 16383n;
const NUMERIC_MAX_EXPONENT = 1073741823n;

/** `text`, which matches {@link DECIMAL}, when PostgreSQL's `numeric` can hold it. */
function checkNumeric(text: string): Decoded<string> {
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const whole = m[1] ?? "";
  const fraction = m[2] ?? "";
  // A bigint: an exponent may have more digits than a double holds exactly.
  const exponent = BigInt(m[3] ?? "0");
  const range = "expected a decimal number within PostgreSQL's numeric range";
  if (exponent >= NUMERIC_MAX_EXPONENT || exponent <= -NUMERIC_MAX_EXPONENT) return fail(range);
  // The scale counts the fraction's digits as written, trailing zeros included, as PostgreSQL counts them.
  if (BigInt(fraction.length) - exponent > NUMERIC_MAX_SCALE)
    return fail(`${range}: at most ${NUMERIC_MAX_SCALE} digits after the decimal point`);
  const lead = (whole + fraction).search(/[1-9]/);
  if (lead >= 0 && BigInt(whole.length - lead) + exponent > NUMERIC_MAX_DIGITS_BEFORE)
    return fail(`${range}: at most ${NUMERIC_MAX_DIGITS_BEFORE} digits before the decimal point`);
  return ok(text);
}

/** A `real` (float4) column, domains aside (they keep their own name). */
function isReal(col: ColumnDescriptor): boolean {
  return /^(real|float4)(\[\])?$/i.test(col.sqlType);
}

/**
 * `n` (finite) when the column's float type holds it: PostgreSQL refuses a
 * `real` that rounds to infinity, or to zero from a value that is not zero,
 * when the statement runs.
 */
function checkFloat(col: ColumnDescriptor, n: number): Decoded<number> {
  if (!isReal(col)) return ok(n);
  const f = Math.fround(n);
  return Number.isFinite(f) && (f !== 0 || n === 0)
    ? ok(n)
    : fail("expected a number within the range of real (about 1.4e-45 to 3.4e38 in magnitude)");
}

/**
 * Whether a `time` kind column is `time with time zone` (kind `time` covers
 * both, language/types.ts): its values carry an offset.
 */
export function hasTimeZone(col: ColumnDescriptor): boolean {
  return col.kind === "time" && /^(timetz|time with time zone)(\(\d+\))?(\[\])?$/i.test(col.sqlType);
}

/** A UTF-16 surrogate without its other half: not a Unicode character, so not text PostgreSQL can store. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why `text` cannot be stored as PostgreSQL text, or undefined when it can: U+0000, which text cannot hold
 * (a database fault otherwise), or a lone surrogate, which the driver would silently store as U+FFFD
 * (docs/decisions/1358-values-through-codecs.md: values go in through the column's codec).
 * @param text a value as decoded from the URL or the JSON body
 * @returns the refusal's detail sentence, or undefined
 */
export function textFault(text: string): string | undefined {
  if (text.includes("\u0000")) return "text may not contain the NUL character";
  if (LONE_SURROGATE.test(text)) return "text may not contain a lone UTF-16 surrogate (half of a character)";
  return undefined;
}

function plainText(text: string): Decoded<string> {
  const fault = textFault(text);
  return fault === undefined ? ok(text) : fail(fault);
}

/**
 * {@link textFault} of any string or key in the JSON value `v`, said of the document: jsonb refuses the
 * NUL escape, and a lone surrogate would not survive.
 */
function documentFault(v: JsonValue): string | undefined {
  const stack: JsonValue[] = [v];
  while (stack.length > 0) {
    const x = stack.pop()!;
    if (typeof x === "string") {
      const fault = textFault(x);
      if (fault !== undefined) return `a JSON document's ${fault}`;
    } else if (Array.isArray(x)) stack.push(...x);
    else if (x !== null && typeof x === "object") for (const [k, y] of Object.entries(x)) stack.push(k, y);
  }
  return undefined;
}

/** `v` as a column's document: refused when it is not plain JSON or holds text PostgreSQL cannot store. */
function asDocument<T>(v: unknown, out: (d: JsonValue) => T): Decoded<T> {
  if (!isJsonValue(v)) return fail(NOT_A_DOCUMENT);
  const fault = documentFault(v);
  return fault === undefined ? ok(out(v)) : fail(fault);
}

/**
 * Decodes URL text for `col` (one element on an array column), returning
 * the refusal instead of throwing. The rule per kind is in
 * docs/decisions/0301-value-codecs.md.
 */
export function decodeText(col: ColumnDescriptor, text: string): Decoded<ScalarValue> {
  switch (col.kind) {
    case "text":
    case "other":
      return plainText(text);
    case "enum": {
      const values = col.enumValues ?? [];
      return values.includes(text) ? ok(text) : fail("expected one of the enum values", values);
    }
    case "integer":
      return INTEGER.test(text) ? checkInteger(col, Number(text)) : fail("expected an integer");
    case "bigint":
      return INTEGER.test(text) ? checkBigint(BigInt(text)) : fail("expected an integer");
    case "numeric":
      return DECIMAL.test(text) ? checkNumeric(text) : fail("expected a decimal number, e.g. 4.99");
    case "float": {
      const n = DECIMAL.test(text) ? Number(text) : NaN;
      return Number.isFinite(n) ? checkFloat(col, n) : fail("expected a finite decimal number");
    }
    case "boolean":
      return text === "true" ? ok(true) : text === "false" ? ok(false) : fail("expected true or false");
    case "date": {
      const r = readDate(text);
      return r.ok ? ok(r.text) : fail(r.detail);
    }
    case "timestamptz":
    case "timestamp": {
      const r = readTimestamp(text, col.kind === "timestamptz");
      return r.ok ? ok(r.text) : fail(r.detail);
    }
    case "time": {
      if (!hasTimeZone(col)) return isTime(text) ? ok(text) : fail("expected a time HH:MM[:SS[.fraction]]");
      const r = readTimeWithZone(text);
      return r.ok ? ok(r.text) : fail(r.detail);
    }
    case "uuid":
      return UUID.test(text) ? ok(text.toLowerCase()) : fail("expected a UUID");
    case "jsonb":
      try {
        return asDocument(JSON.parse(text) as unknown, (d) => JSON.stringify(d));
      } catch {
        return fail("expected a JSON document");
      }
    case "bytea":
      // Base64 is the JSON form responses use (decision 0400); `\x` hex is
      // PostgreSQL's own text form. The alphabets do not overlap, so both are read.
      if (BYTEA_HEX.test(text)) return ok(text);
      if (BASE64.test(text)) return ok("\\x" + Buffer.from(text, "base64").toString("hex"));
      return fail("expected bytes as base64 (or \\x-prefixed hex)");
  }
}

/**
 * Deepest nesting of arrays and objects a JSON document may have: `JSON.parse`
 * takes any depth, but `JSON.stringify` and PostgreSQL's jsonb input recurse
 * and fail past a few thousand levels (docs/decisions/0901-json-document-depth.md).
 */
export const MAX_JSON_DEPTH = 100;

/**
 * True when `v` is plain JSON data (what `JSON.parse` yields) nested at most
 * {@link MAX_JSON_DEPTH} arrays or objects deep: checked iteratively so a
 * deeply nested body cannot exhaust the stack.
 */
export function isJsonValue(v: unknown): v is JsonValue {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, depth] = stack.pop()!;
    if (x === null || typeof x === "string" || typeof x === "boolean") continue;
    if (typeof x === "number") {
      if (!Number.isFinite(x)) return false;
    } else if (depth >= MAX_JSON_DEPTH) {
      return false;
    } else if (Array.isArray(x)) {
      for (const y of x) stack.push([y, depth + 1]);
    } else if (typeof x === "object" && Object.getPrototypeOf(x) === Object.prototype) {
      for (const y of Object.values(x)) stack.push([y, depth + 1]);
    } else {
      return false;
    }
  }
  return true;
}

/** The refusal of a value {@link isJsonValue} rejects. */
export const NOT_A_DOCUMENT = `expected a JSON value, nested at most ${MAX_JSON_DEPTH} levels deep`;

/**
 * Decodes one JSON scalar for `col` (one element on an array column): the
 * JSON type must fit the column (a number for integer and float columns, a
 * boolean for boolean ones, a string for text-like ones), except that
 * numeric and bigint also take their decimal text as a string, so values
 * beyond a double's precision survive. A jsonb or json element takes any
 * JSON value, returned as its JSON text (an array literal's element).
 */
export function decodeJsonScalar(col: ColumnDescriptor, v: unknown): Decoded<ScalarValue> {
  if (holdsDocuments(col)) return asDocument(v, (d) => JSON.stringify(d));
  switch (col.kind) {
    case "integer":
      return typeof v === "number" && Number.isInteger(v) ? checkInteger(col, v) : fail("expected a JSON integer");
    case "bigint":
      if (typeof v === "string") return decodeText(col, v);
      return typeof v === "number" && Number.isSafeInteger(v)
        ? checkBigint(BigInt(v))
        : fail("expected a JSON integer (as a string beyond 2^53)");
    case "numeric":
      if (typeof v === "string") return decodeText(col, v);
      return typeof v === "number" && Number.isFinite(v)
        ? ok(String(v))
        : fail("expected a number or its decimal text");
    case "float":
      return typeof v === "number" && Number.isFinite(v) ? checkFloat(col, v) : fail("expected a JSON number");
    case "boolean":
      return typeof v === "boolean" ? ok(v) : fail("expected true or false");
    default:
      return typeof v === "string" ? decodeText(col, v) : fail("expected a JSON string");
  }
}

/**
 * Decodes the JSON value of a body field for `col`, returning the refusal
 * instead of throwing: `null` only on a nullable column (SQL NULL, also on
 * a jsonb column); an array column takes a JSON array of non-null elements;
 * a jsonb or json column any JSON value, kept as the document (which reads
 * serve, so a value read can be written back); other columns per {@link decodeJsonScalar}.
 */
export function decodeJsonValue(col: ColumnDescriptor, v: unknown): Decoded<WriteValue> {
  if (v === null) return col.nullable ? ok(null) : fail("may not be null");
  if (col.array) {
    if (!Array.isArray(v)) return fail("expected a JSON array");
    const out: ScalarValue[] = [];
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null) return fail(`element ${i}: may not be null`);
      const d = decodeJsonScalar(col, v[i]);
      if (!d.ok) return fail(`element ${i}: ${d.detail}`, d.allowed);
      out.push(d.value);
    }
    return ok(out);
  }
  if (holdsDocuments(col)) return asDocument(v, (d) => d);
  return decodeJsonScalar(col, v);
}

/**
 * Whether decimal text (as {@link decodeText} accepts it, exponent included)
 * fits `numeric(precision, scale)`: PostgreSQL rounds it to `scale` digits
 * after the point (half away from zero), then refuses it when more than
 * `precision` digits remain.
 */
function numericFits(text: string, precision: number, scale: number): boolean {
  const m = /^[+-]?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return true;
  const fraction = m[2] ?? "";
  const digits = ((m[1] ?? "") + fraction).replace(/^0+/, "");
  if (digits === "") return true;
  // value × 10^scale = digits × 10^shift
  const shift = Number(m[3] ?? 0) - fraction.length + scale;
  if (shift >= 0) return digits.length + shift <= precision;
  const keep = digits.length + shift;
  if (keep < 0) return true;
  let head = keep === 0 ? 0n : BigInt(digits.slice(0, keep));
  if ((digits[keep] ?? "0") >= "5") head += 1n;
  return head.toString().length <= precision || head === 0n;
}

/**
 * The declared bounds of `col` a decoded write value must keep: the
 * precision of `numeric(p, s)` and the length of `varchar(n)` /
 * `character(n)`, each element of an array. Checked before the database
 * is asked, so a refusal names the column and the limit, as an integer's
 * range does (docs/decisions/1254-value-limits.md).
 */
export function checkBounds(col: ColumnDescriptor, value: WriteValue): Decoded<WriteValue> {
  const values = Array.isArray(value) ? value : [value];
  for (const v of values) {
    if (typeof v !== "string") continue;
    if (col.kind === "numeric" && col.precision !== undefined && !numericFits(v, col.precision, col.scale ?? 0)) {
      const s = col.scale ?? 0;
      const whole = col.precision - s;
      return fail(
        `expected at most ${col.precision} digits, ${s} after the point (numeric(${col.precision},${s}): less than 10^${whole} in absolute value)`,
      );
    }
    if (col.maxLength !== undefined && (col.kind === "text" || col.kind === "other")) {
      // Characters as PostgreSQL counts them (code points); character(n) ignores trailing spaces.
      const counted = col.sqlType === "bpchar" ? v.replace(/ +$/, "") : v;
      if ([...counted].length > col.maxLength) return fail(`expected at most ${col.maxLength} characters`);
    }
  }
  return ok(value);
}

function refusal(
  location: string,
  col: ColumnDescriptor,
  value: unknown,
  d: { detail: string; allowed?: readonly string[] },
): ProblemError {
  const item = { location, detail: `invalid value for column ${col.name}: ${d.detail}`, value: echoValue(value) };
  return problem("invalid-value", item.detail, [d.allowed ? { ...item, allowed: [...d.allowed] } : item]);
}

/**
 * Decodes URL text for `col` (one element on an array column).
 * @throws ProblemError 400 at `query.<column>` naming the column; for an
 *   enum column `allowed` lists its values in declaration order
 *   (spec: Query grammar, Operators by column type "enum")
 */
export function decodeValue(col: ColumnDescriptor, text: string): ScalarValue {
  const d = decodeText(col, text);
  if (!d.ok) throw refusal(`query.${col.name}`, col, text, d);
  return d.value;
}

/**
 * Decodes the JSON value of a body field for `col` (see
 * {@link decodeJsonValue} for the rules).
 * @throws ProblemError 400 at `body.<column>` naming the column
 */
export function decodeJson(col: ColumnDescriptor, value: unknown): WriteValue {
  const d = decodeJsonValue(col, value);
  if (!d.ok) throw refusal(`body.${col.name}`, col, value, d);
  return d.value;
}
