/**
 * Type-level rules of the query builder: which columns each clause takes,
 * which operators each column takes (the spec's "Operators by column type",
 * as runtime/query/operators.ts applies them to URLs) and the value each
 * operator needs, and the row type a query returns.
 */
import type { OperatorsOf, OperatorsTaking } from "../operators.js";
import type { JsonValue } from "../predicate.js";
import type { ColumnMeta, RelationMeta, TableMeta } from "./schema.js";

/** Flattens an intersection for readable hover text. */
export type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Table names of schema `S`. */
export type TableName<S> = keyof S & string;

type Table<S, T extends TableName<S>> = S[T] extends TableMeta ? S[T] : never;
type Columns<S, T extends TableName<S>> = Table<S, T>["columns"];

/** Column names of table `T` (never a hidden one: the schema type does not hold them). */
export type ColumnName<S, T extends TableName<S>> = keyof Columns<S, T> & string;

/** The metadata of column `K` of table `T`. */
export type Column<S, T extends TableName<S>, K extends ColumnName<S, T>> = Columns<S, T>[K] extends ColumnMeta
  ? Columns<S, T>[K]
  : never;

/** Columns a `where` may name: every column except computed ones (docs/decisions/0602-query-builder.md). */
export type WhereColumn<S, T extends TableName<S>> = {
  [K in ColumnName<S, T>]: Column<S, T, K>["computed"] extends true ? never : K;
}[ColumnName<S, T>];

/** Columns `orderBy` accepts: the Sortable ones. */
export type SortColumn<S, T extends TableName<S>> = {
  [K in ColumnName<S, T>]: true extends Column<S, T, K>["sortable"] ? K : never;
}[ColumnName<S, T>];

/** A sort term: `column` ascending or `-column` descending, as in `?sort=`. */
export type SortSpec<S, T extends TableName<S>> = SortColumn<S, T> | `-${SortColumn<S, T>}`;

/** The primary-key columns of table `T`. */
export type KeyColumn<S, T extends TableName<S>> = Table<S, T>["key"] & ColumnName<S, T>;

/** Expandable relation names of table `T`. */
export type RelationName<S, T extends TableName<S>> = keyof Table<S, T>["relations"] & string;

/** Ordering operators and their set forms (spec: text and other scalar). */
export type OrderedOperator = OperatorsOf<"ordered">;
/** Pattern and substring operators: text and enum columns only. */
export type TextOperator = OperatorsOf<"text">;
/** Kinds without a meaningful order (bytea, extension types): equality and sets only. */
export type EqualityOperator = OperatorsOf<"equality">;
/** The containment vocabulary of array columns. */
export type ArrayOperator = OperatorsOf<"array">;
/** The document vocabulary of jsonb columns. */
export type DocumentOperator = OperatorsOf<"document">;
/** Null tests: nullable columns only. */
export type NullOperator = OperatorsOf<"null">;

/** The operators of a scalar of kind `K` (distributes over a union of kinds). */
type KindOperator<K> = K extends "jsonb"
  ? DocumentOperator
  : K extends "text" | "enum"
    ? OrderedOperator | TextOperator
    : K extends "bytea" | "other"
      ? EqualityOperator
      : OrderedOperator;

/**
 * The operators column `C` takes (spec: Operators by column type). Flags
 * are tested as `true extends flag`, so a column whose flag is only known to
 * be `boolean` (an untyped schema) takes the operators of both cases.
 */
export type OperatorOf<C extends ColumnMeta> =
  | (true extends C["nullable"] ? NullOperator : never)
  | (true extends C["array"] ? ArrayOperator : never)
  | (false extends C["array"] ? KindOperator<C["kind"]> : never);

/** One element of column `C`: the value itself on a scalar column, one item on an array column. */
type Element<C extends ColumnMeta> = C["array"] extends true
  ? C["type"] extends readonly (infer E)[]
    ? E
    : never
  : C["type"];

/**
 * What a comparison on `C` takes for one element: the row form, widened
 * where more than one input form is exact (numeric as text or number,
 * bigint also as `bigint` or text, dates and timestamps also as `Date`).
 */
export type InputOf<C extends ColumnMeta> = C["kind"] extends "numeric"
  ? string | number
  : C["kind"] extends "bigint"
    ? number | bigint | string
    : C["kind"] extends "date" | "timestamptz" | "timestamp"
      ? string | Date
      : C["kind"] extends "other"
        ? string
        : Element<C>;

/** The value arguments of operator `O` on column `C`, as a tuple (none for the null tests). */
export type ValueArgs<C extends ColumnMeta, O> = O extends NullOperator
  ? []
  : O extends OperatorsTaking<"list">
    ? [values: readonly InputOf<C>[]]
    : O extends OperatorsTaking<"pair">
      ? [range: readonly [InputOf<C>, InputOf<C>]]
      : O extends TextOperator
        ? [text: string]
        : O extends DocumentOperator
          ? [document: JsonValue]
          : O extends "eq" | "ne"
            ? C["array"] extends true
              ? [values: readonly InputOf<C>[]]
              : [value: InputOf<C>]
            : [value: InputOf<C>];

/** The value of column `C` in a row: its type, `| null` when nullable. */
export type ValueOf<C extends ColumnMeta> = C["nullable"] extends true ? C["type"] | null : C["type"];

/** A row of table `T` carrying the columns `K`. */
export type RowOf<S, T extends TableName<S>, K extends ColumnName<S, T> = ColumnName<S, T>> = {
  [P in K]: ValueOf<Column<S, T, P>>;
};

/** What an expanded relation adds under its name (spec: Expanded relation shapes). */
export type ExpandedOf<S, R> = R extends RelationMeta
  ? R["target"] extends TableName<S>
    ? R["kind"] extends "forward"
      ? Simplify<RowOf<S, R["target"]>> | null
      : { items: Simplify<RowOf<S, R["target"]>>[]; has_more: boolean }
    : never
  : never;

/** The members the relations `R` of table `T` add to a row. */
export type ExpansionsOf<S, T extends TableName<S>, R extends RelationName<S, T>> = {
  [P in R]: ExpandedOf<S, Table<S, T>["relations"][P]>;
};

/** The value `byKey` takes: the key column's input, `never` for a composite key. */
export type KeyInput<S, T extends TableName<S>> = true extends Table<S, T>["singleKey"]
  ? InputOf<Column<S, T, KeyColumn<S, T>>>
  : never;
