/**
 * Comparisons built in TypeScript: checked against the descriptor exactly as
 * a URL filter would be (column, operator for its type, value decoded by the
 * same codecs), then put in the same predicate tree (runtime/predicate.ts).
 * The types of runtime/builder/types.ts rule most mistakes out at compile
 * time; these checks hold for untyped callers and casts.
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import { cmp, type Comparison, type Operator, type ScalarValue } from "../predicate.js";
import { badRequest } from "../problem.js";
import { decodeJsonScalar, isJsonValue } from "../query/codecs.js";
import { isOperatorName, minListItems, canonicalOperator, operatorsFor, valueShape } from "../query/operators.js";

/** A refusal of a builder call, as the 400 problem an HTTP request would get. */
export function refuse(location: string, detail: string, allowed?: readonly string[]): never {
  throw badRequest("invalid-query", [allowed ? { location, detail, allowed: [...allowed] } : { location, detail }]);
}

/**
 * The column `name` of `table` when in-process code may filter on it: any
 * column that is neither hidden nor computed (docs/decisions/0602-query-builder.md).
 * A hidden column is refused exactly like an unknown one.
 */
export function whereColumn(table: TableDescriptor, name: string): ColumnDescriptor {
  const col = table.columns.find((c) => c.name === name && !c.hidden && c.computed === undefined);
  if (!col) {
    const allowed = table.columns.filter((c) => !c.hidden && c.computed === undefined).map((c) => c.name);
    refuse("where", `unknown column ${name} of ${table.name}`, allowed);
  }
  return col;
}

/** A JavaScript value in the JSON form the codecs read: a `Date` as RFC 3339 text, a `bigint` as decimal text. */
function toJsonForm(col: ColumnDescriptor, v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (!(v instanceof Date)) return v;
  if (Number.isNaN(v.getTime())) return "invalid Date";
  const iso = v.toISOString();
  // A Date is an instant: its UTC calendar day for a date, its UTC wall clock for a timestamp without zone.
  if (col.kind === "date") return iso.slice(0, 10);
  if (col.kind === "timestamp") return iso.slice(0, -1);
  return iso;
}

/**
 * Decodes one element for `col` (a `Date` and a `bigint` taken too).
 * @param label how refusals name the value (`id`, or `the key` when the column may be hidden)
 * @throws ProblemError 400 at `location` for null or a value the column does not take
 */
export function decodeElement(col: ColumnDescriptor, v: unknown, location: string, label = col.name): ScalarValue {
  if (v === null || v === undefined) refuse(location, `a value for ${label} may not be null; use isnull`);
  const d = decodeJsonScalar(col, toJsonForm(col, v));
  if (!d.ok) refuse(location, `invalid value for ${label}: ${d.detail}`, d.allowed);
  return d.value;
}

function element(col: ColumnDescriptor, v: unknown, location: string): ScalarValue {
  return decodeElement(col, v, location);
}

function list(col: ColumnDescriptor, op: Operator, v: unknown, location: string): ScalarValue[] {
  if (!Array.isArray(v)) refuse(location, `${op} on ${col.name} takes an array of values`);
  const min = minListItems(col, op);
  if (v.length < min) refuse(location, `${op} on ${col.name} takes at least ${min} value`);
  return v.map((x) => element(col, x, location));
}

/**
 * One comparison of `table`'s column `column` by operator `op` with the
 * value arguments `args` (none for `isnull`/`notnull`, one otherwise), as a
 * predicate leaf with decoded values.
 * @throws ProblemError 400 `invalid-query` at `where.<column>` (at `where`
 *   for an unknown or hidden column) naming what is wrong, with the
 *   allowed columns or operators
 */
export function comparison(table: TableDescriptor, column: string, op: string, args: readonly unknown[]): Comparison {
  const col = whereColumn(table, column);
  const location = `where.${col.name}`;
  const allowed = operatorsFor(col);
  if (!isOperatorName(op) || !allowed.includes(op))
    refuse(location, `operator ${op} is not valid for ${col.name}`, allowed);
  const operator = canonicalOperator(op);
  const shape = valueShape(col, operator);
  if (shape === "none") {
    if (args.length > 0) refuse(location, `${operator} takes no value`);
    return cmp(col.name, operator);
  }
  if (args.length !== 1) refuse(location, `${operator} on ${col.name} takes exactly one value argument`);
  const v = args[0];
  switch (shape) {
    case "text":
      if (typeof v !== "string" || v.includes("\u0000")) refuse(location, `${operator} takes text without NUL`);
      return cmp(col.name, operator, v);
    case "document":
      if (!isJsonValue(v)) refuse(location, `${operator} takes a JSON value`);
      return cmp(col.name, operator, v);
    case "list":
      return cmp(col.name, operator, list(col, operator, v, location));
    case "pair": {
      if (!Array.isArray(v) || v.length !== 2) refuse(location, `between on ${col.name} takes two values`);
      return cmp(col.name, operator, [element(col, v[0], location), element(col, v[1], location)]);
    }
    default:
      return cmp(col.name, operator, element(col, v, location));
  }
}
