/**
 * The names of the list grammar's own query parameters (spec: Query
 * grammar), in a module of their own so the validator can refuse them as
 * column filters without loading the query parser (bench/COMPILER.md).
 */

/** Parameters that may appear once (docs/decisions/0303-query-parameters.md). */
export const SINGLE = new Set(["select", "sort", "search", "page", "per_page", "offset", "cursor", "count"]);

/**
 * Every query parameter name the list grammar gives a meaning (spec: Query
 * grammar). A column with one of these names cannot have a filter
 * parameter, so the validator refuses it as Filterable.
 */
export const RESERVED_PARAMETERS: readonly string[] = Object.freeze([
  ...SINGLE,
  "expand",
  "filter",
  "or",
  "and",
  "not",
]);
