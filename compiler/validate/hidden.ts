/**
 * Hidden columns (spec: guarantee 2, Column capabilities): a Hidden column
 * never appears in a response, expansion, projection, filter, sort or write
 * body, so every capability that would serve it is a contradiction. Hidden
 * with read-only or immutable is redundant but harmless and is accepted
 * (docs/decisions/0204-hidden-combinations.md).
 */
import { attributeSpan, qualified, type ValidationContext } from "./context.js";

/** Capabilities a hidden column may not carry, by attribute name. */
const REFUSED = ["filterable", "sortable", "searchable"] as const;

/** Reports `hidden-conflict`, once per conflicting attribute. */
export function checkHidden(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      if (!column.hidden) continue;
      const name = qualified(table, column.name);
      for (const attr of REFUSED) {
        const on = attr === "sortable" ? column.sortable !== undefined : column[attr];
        if (on) ctx.error("hidden-conflict", `hidden column "${name}" cannot be @${attr}`, attributeSpan(column, attr));
      }
      if (column.ref?.expandable) {
        ctx.error(
          "hidden-conflict",
          `hidden column "${name}" cannot carry an expandable relation: expanding "${column.ref.relation}" would reveal it`,
          column.ref.span,
        );
      }
      if (column.inverse) {
        ctx.error(
          "hidden-conflict",
          `hidden column "${name}" cannot carry inverse "${column.inverse.name}": its collection would be keyed by a hidden value`,
          column.inverse.span,
        );
      }
      if (column.primaryKey || table.primaryKey.includes(column.name)) {
        ctx.error(
          "hidden-conflict",
          `primary key column "${name}" cannot be hidden: the key is served with every row`,
          attributeSpan(column, "hidden"),
        );
      }
      if (column.computed !== undefined) {
        ctx.error(
          "hidden-conflict",
          `computed column "${name}" cannot be hidden: it exists only to be served`,
          attributeSpan(column, "hidden"),
        );
      }
    }
  }
}
