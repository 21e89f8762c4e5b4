/**
 * Schema lint (spec: Column capabilities, "Schema lint reports"): warnings
 * that do not stop compilation.
 * - An inverse-bearing reference that is not Filterable: the remainder of a
 *   capped collection is fetched with `GET /<child>?<column>=eq.<id>`
 *   (spec: Expansion rule 5), which needs the filter.
 * - A foreign key without an index whose leading column it is (the primary
 *   key and unique constraints count): expansions and parent filters would
 *   scan the child table.
 */
import type { TableDecl } from "../../language/ir.js";
import { attributeSpan, qualified, type ValidationContext } from "./context.js";

/** Whether some index of `table` (primary key, unique, `@@index`, `@@unique`) leads with `column`. */
export function hasLeadingIndex(table: TableDecl, column: string): boolean {
  return (
    table.primaryKey[0] === column ||
    table.columns.some((c) => c.name === column && c.unique) ||
    table.indexes.some((i) => i.columns[0] === column) ||
    table.uniques.some((u) => u[0] === column)
  );
}

/** Reports `inverse-ref-not-filterable` and `unindexed-foreign-key` (both warnings). */
export function checkLint(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      if (!column.ref || column.computed !== undefined) continue;
      const name = qualified(table, column.name);
      if (column.inverse && !column.filterable) {
        ctx.warning(
          "inverse-ref-not-filterable",
          `"${name}" carries inverse "${column.inverse.name}" but is not @filterable, so the rest of a capped collection cannot be paged with ?${column.name}=eq.<id>`,
          attributeSpan(column, "inverse"),
        );
      }
      if (!hasLeadingIndex(table, column.name)) {
        ctx.warning(
          "unindexed-foreign-key",
          `foreign key "${name}" has no index leading with it; add @@index([${column.name}])`,
          column.ref.span,
        );
      }
    }
  }
}
