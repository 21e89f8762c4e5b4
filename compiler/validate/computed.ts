/**
 * Computed columns (spec: Column capabilities, computed; Resource
 * declaration, Computed): a `@computed("expr")` column is a SELECT
 * expression, not storage, so it can be neither key, reference, default,
 * constraint, soft-delete marker nor index member, and it is never written.
 * Filtering and sorting on it are refused: expression predicates and
 * expression keyset seeks are out of scope
 * (docs/decisions/0206-computed-columns.md); Searchable is allowed and joins
 * the search fan-out. A resource's `computed = [...]` names computed
 * columns of its table.
 */
import type { ColumnDecl } from "../../language/ir.js";
import { withHint, attributeSpan, exposedTables, qualified, settingSpan, type ValidationContext } from "./context.js";

/** Attributes a computed column may not carry, with the test for each. */
const REFUSED: { attr: string; on: (c: ColumnDecl) => boolean; why: string }[] = [
  { attr: "primary_key", on: (c) => c.primaryKey, why: "it is not stored" },
  { attr: "unique", on: (c) => c.unique, why: "it is not stored" },
  { attr: "default", on: (c) => c.default !== undefined, why: "it is never written" },
  { attr: "check", on: (c) => c.check !== undefined, why: "it is not stored" },
  { attr: "soft_delete", on: (c) => c.softDelete, why: "it is never written" },
  { attr: "ref", on: (c) => c.ref !== undefined, why: "it is not stored" },
  { attr: "filterable", on: (c) => c.filterable, why: "filters on expressions are not supported" },
  { attr: "sortable", on: (c) => c.sortable !== undefined, why: "ordering by expressions is not supported" },
];

/** Reports `computed-conflict`, `computed-not-stored`, `unknown-computed-column` and `not-computed`. */
export function checkComputed(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    const computed = new Set(table.columns.filter((c) => c.computed !== undefined).map((c) => c.name));
    for (const column of table.columns) {
      if (column.computed === undefined) continue;
      for (const { attr, on, why } of REFUSED) {
        if (on(column)) {
          ctx.error(
            "computed-conflict",
            `computed column "${qualified(table, column.name)}" cannot be @${attr}: ${why}`,
            attributeSpan(column, attr),
          );
        }
      }
    }
    for (const index of table.indexes) {
      for (const col of index.columns.filter((c) => computed.has(c))) {
        ctx.error(
          "computed-not-stored",
          `@@index names computed column "${qualified(table, col)}", which is not stored`,
          index.span,
        );
      }
    }
    for (const unique of table.uniques) {
      for (const col of unique.filter((c) => computed.has(c))) {
        ctx.error(
          "computed-not-stored",
          `@@unique names computed column "${qualified(table, col)}", which is not stored`,
          table.nameSpan,
        );
      }
    }
    for (const col of table.primaryKey.filter((c) => computed.has(c))) {
      const column = ctx.index.column(table, col);
      if (column && !column.primaryKey) {
        ctx.error(
          "computed-not-stored",
          `the primary key names computed column "${qualified(table, col)}", which is not stored`,
          table.nameSpan,
        );
      }
    }
  }
  for (const { table, resource } of exposedTables(ctx.index.schema.tables)) {
    for (const name of resource.computed ?? []) {
      const column = ctx.index.column(table, name);
      if (!column) {
        ctx.error(
          "unknown-computed-column",
          withHint(
            `"computed" names "${name}", which is not a column of table "${table.name}"`,
            name,
            table.columns.filter((c) => c.computed !== undefined).map((c) => c.name),
          ),
          settingSpan(resource, "computed"),
        );
      } else if (column.computed === undefined) {
        ctx.error(
          "not-computed",
          `"computed" names "${qualified(table, name)}", which is not a @computed column`,
          settingSpan(resource, "computed"),
        );
      }
    }
  }
}
