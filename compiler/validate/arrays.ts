/**
 * Array columns (spec: Column capabilities, Array): never Sortable, never
 * Searchable, and a Filterable one must carry a GIN index whose first column
 * it is, so containment filters can use it. The three problems are reported
 * independently.
 */
import type { IndexDecl } from "../../language/ir.js";
import { attributeSpan, qualified, type ValidationContext } from "./context.js";

/** Whether an index serves containment on `column`: GIN with `column` leading. */
export function isGinOn(index: IndexDecl, column: string): boolean {
  return index.using?.toLowerCase() === "gin" && index.columns[0] === column;
}

/** Reports `array-sortable`, `array-searchable` and `array-filterable-without-gin`. */
export function checkArrays(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      if (ctx.index.resolve(column.type).arrayDims === 0) continue;
      const name = qualified(table, column.name);
      if (column.sortable) {
        ctx.error("array-sortable", `array column "${name}" cannot be @sortable`, attributeSpan(column, "sortable"));
      }
      if (column.searchable) {
        ctx.error(
          "array-searchable",
          `array column "${name}" cannot be @searchable`,
          attributeSpan(column, "searchable"),
        );
      }
      if (column.filterable && !table.indexes.some((i) => isGinOn(i, column.name))) {
        ctx.error(
          "array-filterable-without-gin",
          `filterable array column "${name}" needs a GIN index: add @@index([${column.name}], using: gin)`,
          attributeSpan(column, "filterable"),
        );
      }
    }
  }
}
