/**
 * The predicate tree: the one representation of a row condition.
 *
 * The URL grammar (`runtime/query`), the JSON filter tree, hooks and the
 * in-process query builder all produce it; the SQL compiler
 * (`runtime/sql/where.ts`) is its only consumer. Values in the tree are
 * already decoded for their column (spec: Query grammar); they become bind
 * parameters, never SQL text.
 */

import type { Operator } from "./operators.js";
import type { TableDescriptor } from "./descriptor.js";

/** Every operator of the spec's "Operators by column type", stated in the vocabulary (runtime/operators.ts). The parsers normalise the input alias `neq` to `ne`, so it never appears in a tree. */
export type { Operator };

/** A JSON value, as carried by the document operators. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A scalar bound to a parameter. Strings are already validated for the
 * column's type (a numeric travels as its decimal text to keep precision).
 */
export type ScalarValue = string | number | bigint | boolean | Date;

/**
 * One leaf condition on a column.
 *
 * `value` by operator: none for `isnull`/`notnull`; a two-element array for
 * `between`; an array for `in`, `nin`, `hasany`, `hasall`, `nhasany`,
 * `nhasall` and for `eq`/`ne` on an array column; a {@link JsonValue} for
 * `hasdoc`/`nhasdoc`; a scalar otherwise. `table`, when set, qualifies the
 * column with a table name (hooks may do this; see spec: Expansion rule 6).
 */
export interface Comparison {
  kind: "cmp";
  column: string;
  table?: string;
  op: Operator;
  value?: ScalarValue | ScalarValue[] | JsonValue;
}

/** Conjunction; an empty `and` is true. */
export interface And {
  kind: "and";
  children: Predicate[];
}

/** Disjunction; an empty `or` is false. */
export interface Or {
  kind: "or";
  children: Predicate[];
}

/** Negation of exactly one child (`not=(a,b)` is `not(and(a,b))`). */
export interface Not {
  kind: "not";
  child: Predicate;
}

/**
 * An opaque SQL fragment from trusted code (a hook), written as a tagged
 * template: `parts` are SQL text, `values` go between them as bind
 * parameters. It cannot be requalified onto a joined table, so using one in
 * an expansion fails the query (spec: Expansion rule 6).
 */
export interface RawPredicate {
  kind: "raw";
  parts: readonly string[];
  values: ScalarValue[];
}

/**
 * A condition on the row a forward relation names (`list.org_id = $1`): true
 * when the referenced row of `target` exists and satisfies `where`. Made by
 * declared access rules (docs/decisions/1367-access-rules.md); compiled as an
 * `EXISTS` semi-join correlated on `column`, so it moves onto an expansion's
 * join as any unqualified comparison does.
 */
export interface Related {
  kind: "related";
  /** The relation's name, for messages. */
  relation: string;
  /** The confined table's referencing column. */
  column: string;
  /** The referenced table. */
  target: TableDescriptor;
  /** The referenced column of `target`. */
  targetColumn: string;
  /** The condition on the referenced row, over `target`'s columns. */
  where: Predicate;
}

/** A node of the predicate tree. */
export type Predicate = Comparison | And | Or | Not | RawPredicate | Related;

/** Builds a conjunction, flattening nested `and`s; one child is returned as is. */
export function and(...children: Predicate[]): Predicate {
  const flat: Predicate[] = [];
  for (const c of children) {
    if (c.kind === "and") flat.push(...c.children);
    else flat.push(c);
  }
  return flat.length === 1 ? flat[0] : { kind: "and", children: flat };
}

/** Builds a disjunction; one child is returned as is. */
export function or(...children: Predicate[]): Predicate {
  return children.length === 1 ? children[0] : { kind: "or", children };
}

/** Negates one predicate. */
export function not(child: Predicate): Not {
  return { kind: "not", child };
}

/** Builds a leaf comparison. */
export function cmp(column: string, op: Operator, value?: Comparison["value"], table?: string): Comparison {
  const c: Comparison = { kind: "cmp", column, op };
  if (value !== undefined) c.value = value;
  if (table !== undefined) c.table = table;
  return c;
}

/** Tagged template for a raw predicate: ``raw`"org_id" = ${orgId}` ``. Interpolations are bind parameters. */
export function raw(parts: TemplateStringsArray, ...values: ScalarValue[]): RawPredicate {
  return { kind: "raw", parts: [...parts], values };
}

/** Counts leaf conditions (comparisons and raw fragments), the unit of MaxFilters. */
export function countLeaves(p: Predicate | undefined): number {
  if (!p) return 0;
  switch (p.kind) {
    case "and":
    case "or":
      return p.children.reduce((n, c) => n + countLeaves(c), 0);
    case "not":
      return countLeaves(p.child);
    case "related":
      return 1 + countLeaves(p.where);
    default:
      return 1;
  }
}
