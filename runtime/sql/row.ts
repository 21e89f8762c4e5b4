/**
 * The `j` column every row-returning statement selects: the row object with
 * its expansions, as JSON text (docs/decisions/0400-row-json-forms.md).
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Params } from "./bind.js";
import { expansionEntries } from "./expand.js";
import type { Aliases, CompileOptions } from "./options.js";
import { entryList, rowJsonOfList, tableRow } from "./output.js";
import { tableMembers, withJsonMembers, type RowMembers } from "./members.js";

/** What to put in a row object. */
export interface RowShape {
  /** Projection (spec: Projection); absent for every visible column. */
  select?: readonly string[];
  /** Relations to expand, in order; empty for none. */
  expand: readonly string[];
}

/**
 * The select list of the row object of `table` aliased `alias`
 * (`<sql> AS "<name>", …`): visible columns in declaration order, then each
 * expanded relation under its name. Expansion values (limits, scope values)
 * are added to `params`.
 */
export function rowList(
  service: ServiceDescriptor,
  table: TableDescriptor,
  alias: string,
  shape: RowShape,
  ctx: { params: Params; aliases: Aliases; options: CompileOptions },
): string {
  const row = tableRow(table, alias, shape.select);
  if (shape.expand.length === 0) return row.list;
  return `${row.list}, ${entryList(expansionEntries({ service, ...ctx }, table, shape.expand, alias))}`;
}

/** `<row json>::text AS "j"` for the row of `table` aliased `alias`, as {@link rowList} lists it. */
export function rowSelect(
  service: ServiceDescriptor,
  table: TableDescriptor,
  alias: string,
  shape: RowShape,
  ctx: { params: Params; aliases: Aliases; options: CompileOptions },
): string {
  if (shape.expand.length === 0) return `${tableRow(table, alias, shape.select).json}::text AS "j"`;
  return `${rowJsonOfList(rowList(service, table, alias, shape, ctx))}::text AS "j"`;
}

/**
 * The members of the row object of `table` aliased `alias`, as lists and
 * reads select them (docs/decisions/0805-row-members-as-json-array.md):
 * visible columns in declaration order, then each expanded relation under
 * its name, its value the JSON PostgreSQL builds. Expansion values (limits,
 * scope values) are added to `params`.
 */
export function rowMembers(
  service: ServiceDescriptor,
  table: TableDescriptor,
  alias: string,
  shape: RowShape,
  ctx: { params: Params; aliases: Aliases; options: CompileOptions },
): RowMembers {
  const row = tableMembers(table, alias, shape.select);
  if (shape.expand.length === 0) return row;
  return withJsonMembers(row, expansionEntries({ service, ...ctx }, table, shape.expand, alias));
}
