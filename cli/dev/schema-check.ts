/**
 * Compares a live database with what a schema declares, before `resc dev
 * --database-url` serves it: every declared table, column (computed columns
 * excepted: they are expressions), enum or domain type, enum value and index
 * must exist. Extra objects in the database are fine: resc describes an
 * existing database, it does not own it.
 */
import type { Schema } from "../../compiler/ir.js";
import type { Executor } from "../../runtime/exec/executor.js";

async function rows(db: Executor, text: string): Promise<Record<string, string | null>[]> {
  return (await db.query({ text, values: [] })).rows;
}

/**
 * Returns one sentence per mismatch (empty when the database has everything
 * the schema declares). Looks only at the schemas on the search path.
 * @throws the driver's error when the database cannot be queried
 */
export async function findSchemaMismatches(db: Executor, schema: Schema): Promise<string[]> {
  const problems: string[] = [];
  // Four catalog reads at once: on a pool each takes its own connection, so a start waits for the slowest, not the sum.
  const [cols, tables, types, indexes] = await Promise.all([
    rows(
      db,
      `select c.table_name as t, c.column_name as c from information_schema.columns c
     where c.table_schema = any(current_schemas(false))`,
    ),
    rows(db, `select table_name as t from information_schema.tables where table_schema = any(current_schemas(false))`),
    rows(
      db,
      `select t.typname as n, e.enumlabel as v from pg_type t
     join pg_namespace ns on ns.oid = t.typnamespace
     left join pg_enum e on e.enumtypid = t.oid
     where ns.nspname = any(current_schemas(false)) and t.typtype in ('e', 'd')`,
    ),
    rows(
      db,
      `select tc.relname as t, am.amname as m,
            (select string_agg(a.attname, ',' order by k.ord) from unnest(i.indkey) with ordinality k(attnum, ord)
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum) as cols
     from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_class tc on tc.oid = i.indrelid
     join pg_namespace ns on ns.oid = tc.relnamespace join pg_am am on am.oid = ic.relam
     where ns.nspname = any(current_schemas(false))`,
    ),
  ]);
  const tableSet = new Set(tables.map((r) => r.t));
  const colSet = new Set(cols.map((r) => `${r.t}.${r.c}`));
  const typeSet = new Set(types.map((r) => r.n));
  const enumValues = new Set(types.map((r) => `${r.n}.${r.v}`));
  const indexSet = new Set(indexes.map((r) => `${r.t}(${r.cols}) ${r.m}`));

  for (const en of schema.enums) {
    if (!typeSet.has(en.name)) problems.push(`enum type "${en.name}" is missing`);
    else
      for (const v of en.values)
        if (!enumValues.has(`${en.name}.${v}`)) problems.push(`enum "${en.name}" has no value "${v}"`);
  }
  for (const d of schema.domains) if (!typeSet.has(d.name)) problems.push(`domain "${d.name}" is missing`);
  for (const t of schema.tables) {
    if (!tableSet.has(t.name)) {
      problems.push(`table "${t.name}" is missing`);
      continue;
    }
    for (const c of t.columns) {
      if (c.computed === undefined && !colSet.has(`${t.name}.${c.name}`))
        problems.push(`column "${t.name}.${c.name}" is missing`);
    }
    for (const ix of t.indexes) {
      const method = ix.using ?? "btree";
      if (!indexSet.has(`${t.name}(${ix.columns.join(",")}) ${method}`)) {
        problems.push(`index on "${t.name}" (${ix.columns.join(", ")}) using ${method} is missing`);
      }
    }
  }
  return problems;
}
