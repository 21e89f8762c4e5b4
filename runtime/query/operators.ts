/**
 * Which operators each column accepts (spec: Operators by column type),
 * drawn from the families of the one vocabulary (runtime/operators.ts), and
 * the shape of value an operator takes on a given column.
 */
import type { ColumnDescriptor } from "../descriptor.js";
import {
  OPERATOR_FAMILIES,
  canonicalOperator,
  isOperatorName,
  operatorValue,
  type Operator,
  type OperatorName,
  type ValueShape,
} from "../operators.js";

export { canonicalOperator, isOperatorName, type OperatorName, type ValueShape };

const byColumn = new WeakMap<ColumnDescriptor, readonly OperatorName[]>();

function vocabularyOf(col: ColumnDescriptor): OperatorName[] {
  const f = OPERATOR_FAMILIES;
  let ops: readonly OperatorName[];
  if (col.array) ops = f.array;
  else if (col.kind === "jsonb") ops = f.document;
  else if (col.kind === "text" || col.kind === "enum") ops = [...f.ordered, ...f.text];
  else if (col.kind === "bytea" || col.kind === "other") ops = f.equality;
  else ops = f.ordered;
  return col.nullable ? [...ops, ...f.null] : [...ops];
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

/** The {@link ValueShape} of `op` on `col` (runtime/operators.ts `operatorValue`). */
export function valueShape(col: ColumnDescriptor, op: Operator): ValueShape {
  return operatorValue(op, col.array);
}

/**
 * Fewest items a list operator accepts: an empty list is a whole-array
 * value for `eq`/`ne` on an array column (`{}`), and meaningless elsewhere
 * (`in ()` matches nothing, `hasall ()` everything), so refused there.
 */
export function minListItems(col: ColumnDescriptor, op: Operator): number {
  return col.array && (op === "eq" || op === "ne") ? 0 : 1;
}
