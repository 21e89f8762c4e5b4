/**
 * The soft-delete marker (spec: Column capabilities; Generated operations
 * rule 2): at most one per table, and a nullable `timestamptz` or
 * `timestamp`, because a non-null value marks the row as removed and NULL
 * keeps it (docs/decisions/0207-soft-delete-column.md).
 */
import { attributeSpan, qualified, typeText, type ValidationContext } from "./context.js";

/** Reports `multiple-soft-delete`, `soft-delete-not-nullable` and `soft-delete-type`. */
export function checkSoftDelete(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    const markers = table.columns.filter((c) => c.softDelete);
    for (const extra of markers.slice(1)) {
      ctx.error(
        "multiple-soft-delete",
        `table "${table.name}" already has soft-delete column "${markers[0].name}"`,
        attributeSpan(extra, "soft_delete"),
      );
    }
    for (const column of markers) {
      const name = qualified(table, column.name);
      const resolved = ctx.index.resolve(column.type);
      if (resolved.arrayDims > 0 || (resolved.kind !== "timestamptz" && resolved.kind !== "timestamp")) {
        ctx.error(
          "soft-delete-type",
          `soft-delete column "${name}" must be a timestamptz or timestamp, not "${typeText(column.type)}"`,
          attributeSpan(column, "soft_delete"),
        );
      }
      if (!column.nullable) {
        ctx.error(
          "soft-delete-not-nullable",
          `soft-delete column "${name}" must be nullable (write "${typeText(column.type)}?"): NULL marks a live row`,
          attributeSpan(column, "soft_delete"),
        );
      }
    }
  }
}
