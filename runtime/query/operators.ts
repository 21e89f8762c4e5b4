/**
 * The operator vocabulary by column type (spec: Operators by column type)
 * and the shape of value each operator takes.
 */
import type { ColumnDescriptor } from "../descriptor.js";
import type { Operator } from "../predicate.js";

/** An operator as a request may spell it: every {@link Operator} plus the alias `neq`. */
export type OperatorName = Operator | "neq";

const ALL: readonly OperatorName[] = [
  "eq",
  "ne",
  "neq",
  "gt",
  "gte",
  "lt",
  "lte",
  "in",
  "nin",
  "between",
  "like",
  "ilike",
  "contains",
  "startswith",
  "endswith",
  "isnull",
  "notnull",
  "has",
  "hasany",
  "hasall",
  "nhas",
  "nhasany",
  "nhasall",
  "hasdoc",
  "nhasdoc",
];
const NAMES: ReadonlySet<string> = new Set(ALL);

const ORDERED: readonly OperatorName[] = ["eq", "ne", "neq", "gt", "gte", "lt", "lte", "in", "nin", "between"];
const TEXT_ONLY: readonly OperatorName[] = ["like", "ilike", "contains", "startswith", "endswith"];
/** For kinds without a meaningful order or text form (docs/decisions/0300-filter-syntax.md). */
const EQUALITY: readonly OperatorName[] = ["eq", "ne", "neq", "in", "nin"];
const ARRAY: readonly OperatorName[] = ["eq", "ne", "neq", "has", "hasany", "hasall", "nhas", "nhasany", "nhasall"];
const DOCUMENT: readonly OperatorName[] = ["hasdoc", "nhasdoc"];
const NULL_TESTS: readonly OperatorName[] = ["isnull", "notnull"];

/** True when `s` is an operator spelling of the request grammar (case-sensitive). */
export function isOperatorName(s: string): s is OperatorName {
  return NAMES.has(s);
}

/** Maps the input alias `neq` to `ne`; the predicate tree never holds `neq`. */
export function normaliseOperator(name: OperatorName): Operator {
  return name === "neq" ? "ne" : name;
}

const byColumn = new WeakMap<ColumnDescriptor, readonly OperatorName[]>();

function vocabularyOf(col: ColumnDescriptor): OperatorName[] {
  let ops: readonly OperatorName[];
  if (col.array) ops = ARRAY;
  else if (col.kind === "jsonb") ops = DOCUMENT;
  else if (col.kind === "text" || col.kind === "enum") ops = [...ORDERED, ...TEXT_ONLY];
  else if (col.kind === "bytea" || col.kind === "other") ops = EQUALITY;
  else ops = ORDERED;
  return col.nullable ? [...ops, ...NULL_TESTS] : [...ops];
}

/**
 * The operators `col` accepts, in alphabetical order as the spec's refusals
 * list them (spec: Errors, "allowed operators listed in alphabetical
 * order"). `neq` is listed wherever `ne` is; `isnull`/`notnull` only on a
 * nullable column.
 */
export function operatorsFor(col: ColumnDescriptor): readonly OperatorName[] {
  let ops = byColumn.get(col);
  if (!ops) {
    ops = vocabularyOf(col).sort();
    byColumn.set(col, ops);
  }
  return ops;
}

/**
 * The value an operator takes on a column:
 * - `none`: no value (`isnull`, `notnull`);
 * - `scalar`: one value of the column's type;
 * - `text`: one pattern or substring, not checked against enum values;
 * - `element`: one value of an array column's element type (`has`, `nhas`);
 * - `list`: a list of values (`in`, `nin`, the array set operators, and
 *   `eq`/`ne` on an array column, which compare the whole array);
 * - `pair`: exactly two values (`between`);
 * - `document`: a JSON value (`hasdoc`, `nhasdoc`).
 */
export type ValueShape = "none" | "scalar" | "text" | "element" | "list" | "pair" | "document";

/** The {@link ValueShape} of `op` on `col`. */
export function valueShape(col: ColumnDescriptor, op: Operator): ValueShape {
  switch (op) {
    case "isnull":
    case "notnull":
      return "none";
    case "like":
    case "ilike":
    case "contains":
    case "startswith":
    case "endswith":
      return "text";
    case "has":
    case "nhas":
      return "element";
    case "in":
    case "nin":
    case "hasany":
    case "hasall":
    case "nhasany":
    case "nhasall":
      return "list";
    case "between":
      return "pair";
    case "hasdoc":
    case "nhasdoc":
      return "document";
    case "eq":
    case "ne":
      return col.array ? "list" : "scalar";
    default:
      return "scalar";
  }
}

/**
 * Fewest items a list operator accepts: an empty list is a whole-array
 * value for `eq`/`ne` on an array column (`{}`), and meaningless elsewhere
 * (`in ()` matches nothing, `hasall ()` everything), so refused there.
 */
export function minListItems(col: ColumnDescriptor, op: Operator): number {
  return col.array && (op === "eq" || op === "ne") ? 0 : 1;
}
