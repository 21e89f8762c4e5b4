/**
 * The operator vocabulary of the query grammar, stated once (spec:
 * Operators by column type; docs/decisions/0300-filter-syntax.md): every
 * operator, the value each takes, the input alias `neq`, the families a
 * column type draws its operators from, and how a value is quoted inside a
 * list or a group.
 *
 * resc's request parsers and SQL compiler, its OpenAPI backend, and the
 * generated typed client and command tree all read this one statement. It
 * imports nothing, so a generated client carries it verbatim
 * (docs/decisions/1328-generated-cores.md).
 */

/** Every operator of the spec's "Operators by column type". */
export type Operator =
  | "eq"
  | "ne"
  | "gt"
  | "gte"
  | "lt"
  | "lte"
  | "in"
  | "nin"
  | "between"
  | "like"
  | "ilike"
  | "contains"
  | "startswith"
  | "endswith"
  | "isnull"
  | "notnull"
  | "has"
  | "hasany"
  | "hasall"
  | "nhas"
  | "nhasany"
  | "nhasall"
  | "hasdoc"
  | "nhasdoc";

/** An operator as a request may spell it: every {@link Operator} plus the alias `neq`. */
export type OperatorName = Operator | "neq";

/**
 * The value an operator takes:
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

/**
 * Each operator and the value it takes on a column that is not an array.
 * Keyed by the whole union, so an operator added without its shape does
 * not compile.
 */
export const OPERATOR_VALUES = {
  eq: "scalar",
  ne: "scalar",
  gt: "scalar",
  gte: "scalar",
  lt: "scalar",
  lte: "scalar",
  in: "list",
  nin: "list",
  between: "pair",
  like: "text",
  ilike: "text",
  contains: "text",
  startswith: "text",
  endswith: "text",
  isnull: "none",
  notnull: "none",
  has: "element",
  hasany: "list",
  hasall: "list",
  nhas: "element",
  nhasany: "list",
  nhasall: "list",
  hasdoc: "document",
  nhasdoc: "document",
} as const satisfies Record<Operator, ValueShape>;

/** The input aliases and the operator each stands for. */
export const OPERATOR_ALIASES = { neq: "ne" } as const satisfies Record<Exclude<OperatorName, Operator>, Operator>;

/** The names of the {@link OPERATOR_FAMILIES}. */
export type OperatorFamily = "ordered" | "text" | "equality" | "array" | "document" | "null";

/**
 * The families a column type draws its operators from (spec: Operators by
 * column type): `ordered` for numbers, dates and times (and, with `text`,
 * for text and enums), `equality` for kinds without a meaningful order or
 * text form (docs/decisions/0300-filter-syntax.md), `array`, `document`
 * (jsonb), and `null` for the tests a nullable column adds.
 */
export const OPERATOR_FAMILIES = {
  ordered: ["eq", "ne", "neq", "gt", "gte", "lt", "lte", "in", "nin", "between"],
  text: ["like", "ilike", "contains", "startswith", "endswith"],
  equality: ["eq", "ne", "neq", "in", "nin"],
  array: ["eq", "ne", "neq", "has", "hasany", "hasall", "nhas", "nhasany", "nhasall"],
  document: ["hasdoc", "nhasdoc"],
  null: ["isnull", "notnull"],
} as const satisfies Record<OperatorFamily, readonly OperatorName[]>;

/** The operators of family `F`, without the input alias `neq`. */
export type OperatorsOf<F extends OperatorFamily> = Exclude<(typeof OPERATOR_FAMILIES)[F][number], "neq">;

/** The operators whose value has shape `S` on a column that is not an array. */
export type OperatorsTaking<S extends ValueShape> = {
  [O in Operator]: (typeof OPERATOR_VALUES)[O] extends S ? O : never;
}[Operator];

/** True when `name` is an operator spelling of the request grammar (case-sensitive). */
export function isOperatorName(name: string): name is OperatorName {
  return (
    Object.prototype.hasOwnProperty.call(OPERATOR_VALUES, name) ||
    Object.prototype.hasOwnProperty.call(OPERATOR_ALIASES, name)
  );
}

/** The operator an input spelling stands for: `neq` is `ne`; the predicate tree never holds an alias. */
export function canonicalOperator(name: OperatorName): Operator {
  return name === "neq" ? OPERATOR_ALIASES.neq : name;
}

/**
 * The value `name` takes on a column; on an array column (`array` true)
 * `eq` and `ne` compare the whole array, so they take a list.
 */
export function operatorValue(name: OperatorName, array: boolean): ValueShape {
  const op = canonicalOperator(name);
  return array && (op === "eq" || op === "ne") ? "list" : OPERATOR_VALUES[op];
}

/**
 * Characters that make a value unsafe to write unquoted inside a list or a
 * group (docs/decisions/0300-filter-syntax.md).
 */
const NEEDS_QUOTES = /[,()[\]{}"]/;

/** `s` in double quotes, `\` and `"` escaped: the only two escapes the grammar reads. */
export function quoteValue(s: string): string {
  return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

/** A single value as written after `op.`: quoted when it holds a character a list or group would split on. */
export function writeScalarValue(s: string): string {
  return NEEDS_QUOTES.test(s) ? quoteValue(s) : s;
}

/** One item of a value list: quoted when it is empty or holds a delimiter. */
export function writeListItem(s: string): string {
  return s === "" || NEEDS_QUOTES.test(s) ? quoteValue(s) : s;
}
