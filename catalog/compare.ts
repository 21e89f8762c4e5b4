/**
 * The comparisons the commands share, as catalog steps: a live database against a schema (`check
 * --database-url`, the drift gate; and presence only, the live schema check of `resc dev --database-url` and
 * `resc serve`'s /ready) here, and what they are built from (the renames a schema declares, catalogs
 * without comments or resc's own tables); a schema against its migrations is `cli/migrate/pending.ts`.
 */
import { emitSql, namespaces, schemaNamespaces } from "../compiler/backends/sql/index.js";
import { storedColumns, type Schema } from "../language/ir.js";
import type { Executor } from "../runtime/exec/executor.js";
import { expressibleCatalog } from "./expressible.js";
import { placedKey, type Catalog } from "./model.js";
import { readCatalog } from "./read.js";
import { diffCatalogs, type Step } from "./diff.js";
import { readPrelude } from "./project/prelude.js";
import { catalogOfDdl } from "./project/scratch.js";
import { declaredCatalog } from "./project/declared.js";
import { mismatchSentences } from "./render/mismatches.js";
import type { ScratchDatabase } from "./project/scratch-database.js";
import { isOwnTable } from "../runtime/own-objects.js";

/**
 * `catalog` without `COMMENT ON` texts: the drift gate compares structure, and a doc comment that differs from
 * the database's comment is documentation, not drift (`migrate diff` does carry comments).
 */
export function withoutComments(catalog: Catalog): Catalog {
  return {
    ...catalog,
    tables: catalog.tables.map(({ comment: _table, ...t }) => ({
      ...t,
      columns: t.columns.map(({ comment: _column, ...c }) => c),
    })),
  };
}

/**
 * `catalog` without resc's own tables (runtime/own-objects.ts, docs/decisions/1357-resc-own-objects.md). `readCatalog`
 * already leaves them out; this keeps a catalog built some other way to the same rule.
 */
export function withoutHistory(catalog: Catalog): Catalog {
  return { ...catalog, tables: catalog.tables.filter((t) => !isOwnTable(t.name)) };
}

/**
 * The renames a schema declares, by database names ({@link placedKey}):
 * `table` → old table name (`@@renamed_from`, in the same namespace) and
 * `table.column` → old column name (`@renamed_from`).
 */
export function declaredRenames(schema: Schema): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of schema.tables) {
    const table = placedKey({ schema: t.schema ?? "public", name: t.dbName ?? t.name });
    if (t.renamedFrom !== undefined) out.set(table, t.renamedFrom);
    for (const c of storedColumns(t))
      if (c.renamedFrom !== undefined) out.set(`${table}.${c.dbName ?? c.name}`, c.renamedFrom);
  }
  return out;
}

/**
 * The steps that would make the live database match `schema` in the namespaces it describes
 * (`public` and every `@@schema`): empty when it does. The live side is read as far as the language can say
 * it (`expressibleCatalog`): what a pulled file leaves out is the database's own and is not drift.
 * `scratch`: the scratch database, when the caller started it early (`startScratch`); embedded otherwise.
 */
export async function driftSteps(db: Executor, schema: Schema, scratch?: Promise<ScratchDatabase>): Promise<Step[]> {
  const schemas = schemaNamespaces(schema);
  const live = expressibleCatalog(withoutHistory(await readCatalog(db, schemas)), schemas);
  const prelude = await readPrelude(db);
  const desired = withoutHistory(await catalogOfDdl(emitSql(schema), { schemas, prelude, database: scratch }));
  return diffCatalogs(withoutComments(live), withoutComments(desired));
}

/** The search path's namespaces, in order (`current_schemas(false)`: those that exist, without `pg_catalog`). */
const SEARCH_PATH = `select s.n from unnest(current_schemas(false)) with ordinality s(n, i) order by s.i`;

/**
 * Compares a live database with what `schema` declares, before `resc dev --database-url` serves it and whenever
 * `resc serve`'s /ready is asked: one sentence per mismatch, empty when the database has everything the schema
 * declares. Every declared table (or a view, materialized view or foreign table of that name), stored column
 * (computed ones are expressions), enum or domain type, enum value and index (by method and columns) must exist;
 * extra objects are fine. Of resc's own objects only the outbox and the capture triggers are asked for, when a
 * resource declares `events`. Reads the search path's namespaces and those the schema names, by database names
 * (docs/decisions/1257-database-names.md), with the one reader, compares with the differ's presence-only mode
 * against the schema projected without a scratch database (`declaredCatalog`, made once per schema) and words
 * what is missing (`render/mismatches.ts`; docs/decisions/1375-catalog-room.md).
 * @throws the driver's error when the database cannot be queried
 */
export async function findSchemaMismatches(db: Executor, schema: Schema): Promise<string[]> {
  const searchPath = (await db.query({ text: SEARCH_PATH, values: [] })).rows.map((r) => r.n!);
  const read = [...new Set([...searchPath, ...namespaces(schema)])];
  const live = await readCatalog(db, read, { views: true, ownTables: true, namesOnly: true });
  const declared = declaredCatalog(schema);
  return mismatchSentences(diffCatalogs(live, declared, new Map(), { presence: { searchPath } }), declared);
}
