/**
 * The comparisons the commands share: a schema against its migrations
 * (`migrate diff`) and a live database against a schema (`check
 * --database-url`), both as catalog steps.
 */
import path from "node:path";
import { emitSql } from "../../compiler/backends/sql/index.js";
import type { Schema } from "../../compiler/ir.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { expressibleCatalog } from "../pull/expressible.js";
import { readCatalog, type Catalog } from "./catalog.js";
import { diffCatalogs, type Step } from "./diff.js";
import { readMigrations, type MigrationFile } from "./files.js";
import { HISTORY_TABLE } from "./history.js";
import { catalogOfDdl, scratchStates } from "./scratch.js";

/** The migrations directory of a schema file: `migrations/` beside it, unless given. */
export function migrationsDir(schemaFile: string, dir?: string): string {
  return dir ?? path.join(path.dirname(schemaFile), "migrations");
}

/** `catalog` without resc's own history table. */
export function withoutHistory(catalog: Catalog): Catalog {
  return { ...catalog, tables: catalog.tables.filter((t) => t.name !== HISTORY_TABLE) };
}

/**
 * The renames a schema declares: `table` → old table name
 * (`@@renamed_from`) and `table.column` → old column name (`@renamed_from`).
 */
export function declaredRenames(schema: Schema): Map<string, string> {
  const out = new Map<string, string>();
  for (const t of schema.tables) {
    if (t.renamedFrom !== undefined) out.set(t.name, t.renamedFrom);
    for (const c of t.columns) if (c.renamedFrom !== undefined) out.set(`${t.name}.${c.name}`, c.renamedFrom);
  }
  return out;
}

/** The steps from what the committed migrations build to what `schema` declares. */
export async function pendingSteps(
  schema: Schema,
  dir: string,
): Promise<{ steps: Step[]; migrations: MigrationFile[] }> {
  const migrations = await readMigrations(dir);
  const states = await scratchStates(migrations, emitSql(schema));
  return { steps: diffCatalogs(states.current, states.desired, declaredRenames(schema)), migrations };
}

/**
 * The steps that would make the live database (namespace `public`) match `schema`: empty when it does. The
 * live side is read as far as the language can say it (`expressibleCatalog`): what a pulled file leaves out is
 * the database's own and is not drift.
 */
export async function driftSteps(db: Executor, schema: Schema): Promise<Step[]> {
  const live = expressibleCatalog(withoutHistory(await readCatalog(db, "public")));
  return diffCatalogs(live, await catalogOfDdl(emitSql(schema)));
}
