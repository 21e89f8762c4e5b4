/**
 * A filter parameter named after a column, `?<column>=<operator>.<value>`
 * or the bare-value shorthand `?<column>=<value>` (spec: Query grammar).
 */
import type { Comparison } from "../predicate.js";
import { buildLeaf, type FilterContext } from "./leaf.js";
import { isOperatorName } from "./operators.js";

/** A parameter value split into operator and value text. */
export interface SplitFilter {
  /** The operator as written (`eq` for the shorthand). */
  op: string;
  /** The value text; undefined for `isnull`/`notnull` written alone. */
  value: string | undefined;
  /** True for the bare-value shorthand. */
  bare: boolean;
}

/**
 * Reads the operator off a parameter value. The text before the first dot
 * is an operator only when it is one of the grammar's operator names
 * (`eq.x`, `in.a,b`, `neq.x`); otherwise the whole text is a bare value for
 * equality, so `foo.bar` and `PG-13` are values. `isnull` and `notnull`
 * alone are the null tests. Names are case-sensitive. To compare with a
 * value that itself starts with an operator name and a dot, or is `isnull`,
 * write the operator: `eq.in.x`, `eq.isnull`.
 * (docs/decisions/0300-filter-syntax.md)
 */
export function splitFilter(text: string): SplitFilter {
  if (text === "isnull" || text === "notnull") return { op: text, value: undefined, bare: false };
  const dot = text.indexOf(".");
  if (dot > 0 && isOperatorName(text.slice(0, dot)))
    return { op: text.slice(0, dot), value: text.slice(dot + 1), bare: false };
  return { op: "eq", value: text, bare: true };
}

/**
 * Parses one `?<name>=<text>` filter parameter into a comparison; problems
 * (unknown or non-filterable column, invalid operator, bad value) are
 * recorded at `query.<name>`.
 */
export function parseColumnParam(ctx: FilterContext, name: string, text: string): Comparison | undefined {
  const { op, value, bare } = splitFilter(text);
  return buildLeaf(ctx, { location: `query.${name}`, prefix: "", parameter: true }, name, op, {
    from: "url",
    text: value,
    bare,
  });
}
