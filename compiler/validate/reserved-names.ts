/**
 * A Filterable column gets a query parameter named after it (spec: Column
 * capabilities). A column whose name is one of the grammar's own parameters
 * (`sort`, `select`, `or`, …) could never be filtered, so Filterable is
 * refused on it rather than silently unreachable.
 */
import { RESERVED_PARAMETERS } from "../../runtime/query/parameters.js";
import { attributeSpan, exposedTables, qualified, type ValidationContext } from "./context.js";

/** Reports `filterable-reserved-name`. */
export function checkReservedNames(ctx: ValidationContext): void {
  for (const { table } of exposedTables(ctx.index.schema.tables)) {
    for (const column of table.columns) {
      if (column.filterable && RESERVED_PARAMETERS.includes(column.name)) {
        ctx.error(
          "filterable-reserved-name",
          `column "${qualified(table, column.name)}" cannot be @filterable: "${column.name}" is a query parameter of the list grammar (${RESERVED_PARAMETERS.join(", ")})`,
          attributeSpan(column, "filterable"),
        );
      }
    }
  }
}
