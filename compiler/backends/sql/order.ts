/**
 * The order tables are created in: every referenced table before the
 * tables referencing it, declaration order otherwise. A reference that
 * closes a cycle cannot be written inline (its target does not exist yet),
 * so it is returned as deferred and added by ALTER TABLE once both tables
 * exist. A table referencing itself needs no deferral.
 */
import type { ColumnDecl, TableDecl } from "../../../language/ir.js";

/** Creation order and the references to add afterwards. */
export interface TableOrder {
  tables: TableDecl[];
  /** References written as `ALTER TABLE … ADD FOREIGN KEY`, in discovery order. */
  deferred: { table: TableDecl; column: ColumnDecl }[];
}

/** Orders `tables` by a depth-first walk over references, in declaration order. */
export function orderTables(tables: readonly TableDecl[]): TableOrder {
  const byName = new Map<string, TableDecl>();
  for (const t of tables) if (!byName.has(t.name)) byName.set(t.name, t);
  const state = new Map<TableDecl, "visiting" | "done">();
  const out: TableOrder = { tables: [], deferred: [] };
  const visit = (table: TableDecl): void => {
    state.set(table, "visiting");
    for (const column of table.columns) {
      if (!column.ref || column.computed !== undefined) continue;
      const target = byName.get(column.ref.target);
      if (!target || target === table) continue;
      const s = state.get(target);
      if (s === undefined) visit(target);
      else if (s === "visiting") out.deferred.push({ table, column });
    }
    state.set(table, "done");
    out.tables.push(table);
  };
  for (const table of tables) if (!state.has(table)) visit(table);
  return out;
}
