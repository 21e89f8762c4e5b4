/**
 * Primary keys (spec: Generated operations; Pagination rule 5): a served
 * table needs a primary key (it is the tiebreaker of every ordering), and
 * the item operations read, update and delete address one row by a single
 * `{id}`, so they need a single-column key. A composite key allows list and
 * create (docs/decisions/0205-composite-keys.md). Key columns are NOT NULL.
 */
import { attributeSpan, qualified, settingSpan, type ValidationContext } from "./context.js";

/** Reports `missing-primary-key`, `composite-key-item-op` and `nullable-primary-key` (the parser reports a second `@primary_key`). */
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
      continue;
    }
    const itemOps = resource.ops.filter((op) => op === "read" || op === "update" || op === "delete");
    if (table.primaryKey.length > 1 && itemOps.length > 0) {
      ctx.error(
        "composite-key-item-op",
        `${itemOps.join(", ")} need${itemOps.length === 1 ? "s" : ""} a single-column primary key, but table "${table.name}" has a composite key (${table.primaryKey.join(", ")}); a composite key allows list and create only`,
        settingSpan(resource, "ops"),
      );
    }
  }
}
