/**
 * Compares a live database with what a schema declares, before `resc dev
 * --database-url` serves it and whenever `resc serve`'s /ready is asked: every declared table, column (computed columns
 * excepted: they are expressions), enum or domain type, enum value and index
 * must exist. Extra objects in the database are fine: resc describes an
 * existing database, it does not own it. Of resc's own objects
 * (runtime/own-objects.ts) only the outbox and its triggers are asked for,
 * when a resource declares `events`; the others are made by the service
 * that needs them.
 */
import { namespaces } from "../../compiler/backends/sql/index.js";
import { encodeArray } from "../../runtime/sql/bind.js";
import { storedColumns, type Schema } from "../../language/ir.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { CAPTURE_TRIGGER, EVENTS_TABLE, OWN_TABLES } from "../../runtime/own-objects.js";

async function rows(db: Executor, text: string, named: readonly string[]): Promise<Record<string, string | null>[]> {
  return (await db.query({ text, values: [encodeArray(named)] })).rows;
}

/** Which namespaces a query reads: the search path's, and every one a declaration names with `@schema`/`@@schema`. */
const READ = "(ns.nspname = any(current_schemas(false)) or ns.nspname = any($1::text[]))";
/** A row's keys: `ns.name`, and `name` alone when its namespace is on the search path (where an unplaced name looks). */
const keysOf = (r: Record<string, string | null>, name: string): string[] =>
  r.vis === "true" ? [`${r.ns}.${name}`, name] : [`${r.ns}.${name}`];
const visible = "(ns.nspname = any(current_schemas(false)))::text as vis, ns.nspname as ns";

/**
 * Returns one sentence per mismatch (empty when the database has everything
 * the schema declares). Looks at the schemas on the search path and those
 * the schema names (`@@schema`), by database names (`@map`, `@@map`;
 * docs/decisions/1257-database-names.md).
 * @throws the driver's error when the database cannot be queried
 */
export async function findSchemaMismatches(db: Executor, schema: Schema): Promise<string[]> {
  const problems: string[] = [];
  const named = namespaces(schema);
  // Five catalog reads at once: on a pool each takes its own connection, so a start waits for the slowest, not the sum.
  const [cols, tables, types, indexes, captures] = await Promise.all([
    rows(
      db,
      `select ${visible}, c.relname as t, a.attname as c from pg_attribute a join pg_class c on c.oid = a.attrelid
       join pg_namespace ns on ns.oid = c.relnamespace
       where c.relkind in ('r', 'p', 'v', 'm', 'f') and a.attnum > 0 and not a.attisdropped and ${READ}`,
      named,
    ),
    rows(
      db,
      `select ${visible}, c.relname as t from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
       where c.relkind in ('r', 'p', 'v', 'm', 'f') and ${READ}`,
      named,
    ),
    rows(
      db,
      `select ${visible}, t.typname as n, e.enumlabel as v from pg_type t
     join pg_namespace ns on ns.oid = t.typnamespace
     left join pg_enum e on e.enumtypid = t.oid
     where ${READ} and t.typtype in ('e', 'd')`,
      named,
    ),
    rows(
      db,
      `select ${visible}, tc.relname as t, am.amname as m,
            (select string_agg(a.attname, ',' order by k.ord) from unnest(i.indkey) with ordinality k(attnum, ord)
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum) as cols
     from pg_index i join pg_class ic on ic.oid = i.indexrelid join pg_class tc on tc.oid = i.indrelid
     join pg_namespace ns on ns.oid = tc.relnamespace join pg_am am on am.oid = ic.relam
     where ${READ}`,
      named,
    ),
    // The change feed's triggers (docs/decisions/1337-change-feed.md): without one, a feed would never hear of a change.
    rows(
      db,
      `select ${visible}, c.relname as t from pg_trigger g join pg_class c on c.oid = g.tgrelid
       join pg_namespace ns on ns.oid = c.relnamespace where g.tgname = '${CAPTURE_TRIGGER}' and not g.tgisinternal and ${READ}`,
      named,
    ),
  ]);
  const captured = new Set(captures.flatMap((r) => keysOf(r, r.t!)));
  const tableSet = new Set(tables.flatMap((r) => keysOf(r, r.t!)));
  const colSet = new Set(cols.flatMap((r) => keysOf(r, `${r.t}.${r.c}`)));
  const typeSet = new Set(types.flatMap((r) => keysOf(r, r.n!)));
  const enumValues = new Set(types.flatMap((r) => keysOf(r, `${r.n}.${r.v}`)));
  const indexSet = new Set(indexes.flatMap((r) => keysOf(r, `${r.t}(${r.cols}) ${r.m}`)));
  /** How a declaration is looked up: `ns.name` when placed by `@schema`, else its name through the search path. */
  const key = (d: { name: string; dbName?: string; schema?: string }, rest = ""): string =>
    `${d.schema !== undefined ? `${d.schema}.` : ""}${d.dbName ?? d.name}${rest}`;
  const shown = (d: { name: string; dbName?: string; schema?: string }): string => key(d);
  const outbox = OWN_TABLES.find((t) => t.name === EVENTS_TABLE)!.holds;

  for (const en of schema.enums) {
    if (!typeSet.has(key(en))) problems.push(`enum type "${shown(en)}" is missing`);
    else
      for (const v of en.values)
        if (!enumValues.has(key(en, `.${v}`))) problems.push(`enum "${shown(en)}" has no value "${v}"`);
  }
  for (const d of schema.domains) if (!typeSet.has(key(d))) problems.push(`domain "${shown(d)}" is missing`);
  if (schema.tables.some((t) => t.resource?.events) && !tableSet.has(EVENTS_TABLE))
    problems.push(`table "${EVENTS_TABLE}", ${outbox}, is missing (resc migrate diff adds it)`);
  for (const t of schema.tables) {
    if (!tableSet.has(key(t))) {
      problems.push(`table "${shown(t)}" is missing`);
      continue;
    }
    const column = (name: string): string => storedColumns(t).find((c) => c.name === name)?.dbName ?? name;
    for (const c of storedColumns(t)) {
      if (c.computed === undefined && !colSet.has(key(t, `.${c.dbName ?? c.name}`)))
        problems.push(`column "${shown(t)}.${c.dbName ?? c.name}" is missing`);
    }
    if (t.resource?.events && !captured.has(key(t)))
      problems.push(
        `table "${shown(t)}" declares events but has no change capture trigger (resc migrate diff adds it)`,
      );
    for (const ix of t.indexes) {
      const method = ix.using ?? "btree";
      const cols = ix.columns.map(column);
      if (!indexSet.has(key(t, `(${cols.join(",")}) ${method}`))) {
        problems.push(`index on "${shown(t)}" (${cols.join(", ")}) using ${method} is missing`);
      }
    }
  }
  return problems;
}
