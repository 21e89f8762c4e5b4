/**
 * A Filterable column gets a query parameter named after it (spec: Column
 * capabilities). A column whose name is one of the grammar's own parameters
 * (`sort`, `select`, `or`, …) could never be filtered, so Filterable is
 * refused on it rather than silently unreachable. A table whose database
 * name is one of resc's own (the outbox, the webhook tables, the
 * idempotency store, the migration history) would be taken for resc's and
 * left out of every comparison, or written over by the service, so it is
 * refused too (docs/decisions/1357-resc-own-objects.md).
 */
import { RESERVED_PARAMETERS } from "../../runtime/query/parameters.js";
import { isOwnTable, OWN_TABLES } from "../../runtime/own-objects.js";
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

/** Reports `own-table-name`: a table whose database name (`@@map`, else its name) is one of resc's own tables. */
export function checkOwnTableNames(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    const name = table.dbName ?? table.name;
    if (!isOwnTable(name)) continue;
    const holds = OWN_TABLES.find((t) => t.name === name)!.holds;
    ctx.error(
      "own-table-name",
      `table "${table.name}" would be "${name}" in the database, the name of resc's own table (${holds}), ` +
        "in whichever schema: give it another name or @@map",
      table.nameSpan,
    );
  }
}
