/**
 * `?search=`: a case-insensitive substring match over every Searchable
 * column, combined as a disjunction (spec: Search). Not full-text search.
 */
import { servedColumns, type ColumnDescriptor, type TableDescriptor } from "../descriptor.js";
import type { Params } from "./bind.js";
import { columnRef } from "./column.js";
import { ilikeEscaped, likePattern } from "./like.js";

/**
 * The columns searched on `table`: Searchable and not hidden; a computed one
 * only when the resource computes it, and then as its expression whether or
 * not `?select` names it (spec: Column capabilities, computed;
 * docs/decisions/0401-list-statement-shape.md).
 */
export function searchColumns(table: TableDescriptor): ColumnDescriptor[] {
  return servedColumns(table).filter((c) => c.searchable && !c.array);
}

/**
 * The search condition for `text` on `table` aliased `alias`: one bound,
 * escaped pattern `%text%` matched with ILIKE against each searched column
 * (non-text kinds through their text form), joined by OR. `FALSE` when the
 * table has no searched column, since an empty disjunction matches nothing.
 */
export function compileSearch(table: TableDescriptor, text: string, alias: string, params: Params): string {
  const cols = searchColumns(table);
  if (cols.length === 0) return "FALSE";
  const pattern = params.typed(likePattern(text, "anywhere"), "text");
  return cols
    .map((c) => {
      const ref = columnRef(c, alias);
      return ilikeEscaped(c.kind === "text" ? ref : `${ref}::text`, pattern);
    })
    .join(" OR ");
}
