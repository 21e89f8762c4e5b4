/**
 * Declared orderings (spec: Resource declaration, DefaultSort; Expansion
 * rule 5): every DefaultSort term and every `@inverse(order: …)` term names
 * a column of the table it orders (the child table for an inverse) that is
 * Sortable, each at most once.
 */
import type { SortTermDecl, TableDecl } from "../../language/ir.js";
import { withHint, exposedTables, qualified, type ValidationContext } from "./context.js";

function checkTerms(ctx: ValidationContext, table: TableDecl, terms: readonly SortTermDecl[], what: string): void {
  const seen = new Set<string>();
  for (const term of terms) {
    const column = ctx.index.column(table, term.column);
    if (!column) {
      ctx.error(
        "unknown-sort-column",
        withHint(
          `${what} names "${term.column}", which is not a column of table "${table.name}"`,
          term.column,
          table.columns.map((c) => c.name),
        ),
        term.span,
      );
    } else if (!column.sortable) {
      ctx.error(
        "sort-column-not-sortable",
        `${what} term "${qualified(table, term.column)}" is not @sortable`,
        term.span,
      );
    }
    if (seen.has(term.column)) {
      ctx.error("duplicate-sort-term", `${what} names "${term.column}" more than once`, term.span);
    }
    seen.add(term.column);
  }
}

/** Reports `unknown-sort-column`, `sort-column-not-sortable` and `duplicate-sort-term`. */
export function checkSorting(ctx: ValidationContext): void {
  for (const { table, resource } of exposedTables(ctx.index.schema.tables)) {
    checkTerms(ctx, table, resource.defaultSort, '"default_sort"');
  }
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      if (column.inverse) checkTerms(ctx, table, column.inverse.order, `the order of inverse "${column.inverse.name}"`);
    }
  }
}
