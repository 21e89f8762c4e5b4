/**
 * One leaf of the predicate tree as SQL: every operator of the spec's
 * "Operators by column type", for scalar, text, array and document columns.
 *
 * Negations (`ne`, `nin`, the n-prefixed array operators, `nhasdoc`) are
 * plain SQL negations: under three-valued logic a row whose column is NULL
 * matches neither an operator nor its negation, and no `IS NULL`
 * alternative is added (spec: Operators by column type).
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import { OPERATOR_FAMILIES, canonicalOperator, type OperatorName } from "../operators.js";
import type { Comparison, JsonValue, Operator } from "../predicate.js";
import { encodeJson, type Params } from "./bind.js";
import { bindColumnValue, bindElement, bindList, columnRef, findColumn, type ColumnValue } from "./column.js";
import { ilikeEscaped, likePattern } from "./like.js";

/** A family of the vocabulary without the input alias, plus the null tests every compiled column takes. */
const compilable = (...families: (readonly OperatorName[])[]): readonly Operator[] => [
  ...new Set([...families.flat(), ...OPERATOR_FAMILIES.null].map(canonicalOperator)),
];
const SCALAR_OPS = compilable(OPERATOR_FAMILIES.ordered);
const TEXT_OPS = compilable(OPERATOR_FAMILIES.ordered, OPERATOR_FAMILIES.text);
const ARRAY_OPS = compilable(OPERATOR_FAMILIES.array);
const DOCUMENT_OPS = compilable(OPERATOR_FAMILIES.document);

/** The operators a column takes (spec: Operators by column type); enums take the text set. */
export function compilableOperators(col: ColumnDescriptor): readonly Operator[] {
  if (col.array) return ARRAY_OPS;
  if (col.kind === "jsonb") return DOCUMENT_OPS;
  if (col.kind === "text" || col.kind === "enum") return TEXT_OPS;
  return SCALAR_OPS;
}

const ORDERING: Partial<Record<Operator, string>> = { eq: "=", ne: "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" };

function list(c: Comparison): unknown[] {
  if (!Array.isArray(c.value)) throw new Error(`operator ${c.op} on column "${c.column}" expects a list of values`);
  return c.value;
}

/** Text of the column for pattern matching: enums (and other non-text kinds) compare as their text. */
function asText(col: ColumnDescriptor, ref: string): string {
  return col.kind === "text" ? ref : `${ref}::text`;
}

function arrayComparison(col: ColumnDescriptor, column: string, c: Comparison, params: Params): string {
  // The operands must be one array type: the column as its parameters' type when its own differs.
  const ref = col.castArrayColumn ? `${column}::${col.sqlType}` : column;
  switch (c.op) {
    case "eq":
    case "ne":
      return `${ref} ${ORDERING[c.op]} ${bindColumnValue(col, list(c) as ColumnValue, params)}`;
    case "has":
      return `${ref} @> ARRAY[${bindElement(col, c.value, params)}]`;
    case "nhas":
      return `NOT (${ref} @> ARRAY[${bindElement(col, c.value, params)}])`;
    case "hasany":
      return `${ref} && ${bindList(col, list(c), params)}`;
    case "nhasany":
      return `NOT (${ref} && ${bindList(col, list(c), params)})`;
    case "hasall":
      return `${ref} @> ${bindList(col, list(c), params)}`;
    case "nhasall":
      return `NOT (${ref} @> ${bindList(col, list(c), params)})`;
    default:
      throw new Error(`operator ${c.op} is not handled for array column "${col.name}"`);
  }
}

function scalarComparison(col: ColumnDescriptor, ref: string, c: Comparison, params: Params): string {
  switch (c.op) {
    case "eq":
    case "ne":
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return `${ref} ${ORDERING[c.op]} ${bindElement(col, c.value, params)}`;
    case "in":
      return `${ref} = ANY(${bindList(col, list(c), params)})`;
    case "nin": {
      const values = list(c);
      // NOT (x = ANY('{}')) would be true for a NULL x; an empty nin keeps only non-null rows.
      if (values.length === 0) return `${ref} IS NOT NULL`;
      return `NOT (${ref} = ANY(${bindList(col, values, params)}))`;
    }
    case "between": {
      const [low, high, ...rest] = list(c);
      if (rest.length > 0 || high === undefined) throw new Error(`between on column "${col.name}" expects two values`);
      return `${ref} BETWEEN ${bindElement(col, low, params)} AND ${bindElement(col, high, params)}`;
    }
    case "like":
      return `${asText(col, ref)} LIKE ${bindElement(textOf(col), c.value, params)}`;
    case "ilike":
      return `${asText(col, ref)} ILIKE ${bindElement(textOf(col), c.value, params)}`;
    case "contains":
    case "startswith":
    case "endswith": {
      if (typeof c.value !== "string") throw new Error(`operator ${c.op} on column "${col.name}" expects a text value`);
      const position = c.op === "contains" ? "anywhere" : c.op === "startswith" ? "start" : "end";
      return ilikeEscaped(asText(col, ref), params.typed(likePattern(c.value, position), "text"));
    }
    case "hasdoc":
      return `${ref} @> ${params.typed(encodeJson((c.value ?? null) as JsonValue), "jsonb")}`;
    case "nhasdoc":
      return `NOT (${ref} @> ${params.typed(encodeJson((c.value ?? null) as JsonValue), "jsonb")})`;
    default:
      throw new Error(`operator ${c.op} is not handled for column "${col.name}"`);
  }
}

/** A pattern is bound as `text` whatever the column's type. */
function textOf(col: ColumnDescriptor): ColumnDescriptor {
  return { ...col, kind: "text", sqlType: "text", array: false };
}

/**
 * Compiles one comparison on `table` (aliased `alias`) to a SQL condition,
 * adding its values to `params`.
 *
 * Throws a plain `Error` when the comparison is qualified with another
 * relation than `table` (a hook predicate that cannot be requalified, spec:
 * Expansion rule 6), names an unknown column, uses an operator the column's
 * kind does not take, or carries a value of the wrong shape. Those are
 * programming errors: request input is validated before it gets here.
 */
export function compileComparison(table: TableDescriptor, c: Comparison, alias: string, params: Params): string {
  if (c.table !== undefined && c.table !== table.name) {
    throw new Error(
      `predicate on column "${c.column}" is qualified with relation "${c.table}" but is applied to relation "${table.name}"`,
    );
  }
  const col = findColumn(table, c.column);
  if (!compilableOperators(col).includes(c.op)) {
    throw new Error(`operator ${c.op} is not valid for column "${col.name}" of relation "${table.name}"`);
  }
  const ref = columnRef(col, alias);
  if (c.op === "isnull") return `${ref} IS NULL`;
  if (c.op === "notnull") return `${ref} IS NOT NULL`;
  return col.array ? arrayComparison(col, ref, c, params) : scalarComparison(col, ref, c, params);
}
