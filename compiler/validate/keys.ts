/**
 * Primary keys (spec: Generated operations; Pagination rule 5): a served
 * table needs a primary key (it is the tiebreaker of every ordering). The
 * item operations read, update and delete address one row by `{id}`, or by
 * one path segment per column of a composite key
 * (docs/decisions/1376-composite-key-address.md, which lifts 0205's cap at
 * list and create). Key columns are NOT NULL.
 */
import { attributeSpan, qualified, type ValidationContext } from "./context.js";

/** Reports `missing-primary-key` and `nullable-primary-key` (the parser reports a second `@primary_key`). */
export function checkKeys(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const name of table.primaryKey) {
      const column = ctx.index.column(table, name);
      if (column?.nullable) {
        ctx.error(
          "nullable-primary-key",
          `primary key column "${qualified(table, name)}" cannot be nullable`,
          column.primaryKey ? attributeSpan(column, "primary_key") : column.type.span,
        );
      }
    }
    const resource = table.resource;
    if (!resource) continue;
    if (table.primaryKey.length === 0) {
      ctx.error(
        "missing-primary-key",
        `table "${table.name}" is served at "${resource.path}" but has no primary key`,
        resource.span,
      );
    }
  }
}
