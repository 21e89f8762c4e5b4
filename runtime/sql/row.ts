/**
 * The `j` column every row-returning statement selects: the row object with
 * its expansions, as JSON text (docs/decisions/0400-row-json-forms.md).
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Params } from "./bind.js";
import { expansionEntries } from "./expand.js";
import type { Aliases, CompileOptions } from "./options.js";
import { rowJson, tableRow } from "./output.js";

/** What to put in a row object. */
export interface RowShape {
  /** Projection (spec: Projection); absent for every visible column. */
  select?: readonly string[];
  /** Relations to expand, in order; empty for none. */
  expand: readonly string[];
}

/**
 * `<row json>::text AS "j"` for the row of `table` aliased `alias`: visible
 * columns in declaration order, then each expanded relation under its name.
 * Expansion values (limits, scope values) are added to `params`.
 */
export function rowSelect(
  service: ServiceDescriptor,
  table: TableDescriptor,
  alias: string,
  shape: RowShape,
  ctx: { params: Params; aliases: Aliases; options: CompileOptions },
): string {
  const row = tableRow(table, alias, shape.select);
  if (shape.expand.length === 0) return `${row.json}::text AS "j"`;
  const entries = [...row.entries, ...expansionEntries({ service, ...ctx }, table, shape.expand, alias)];
  return `${rowJson(entries)}::text AS "j"`;
}
