/**
 * A schema against its committed migrations (`resc migrate diff`, `resc init`): the migrations replayed and the
 * schema projected in one scratch database (catalog/project/scratch.ts), diffed as catalog steps.
 */
import path from "node:path";
import { emitSql, schemaNamespaces } from "../../compiler/backends/sql/index.js";
import type { Schema } from "../../language/ir.js";
import { declaredRenames, diffCatalogs, scratchStates, withoutHistory, type Step } from "../../catalog/index.js";
import { readMigrations, type MigrationFile } from "./files.js";

/** The migrations directory of a schema file: `migrations/` beside it, unless given. */
export function migrationsDir(schemaFile: string, dir?: string): string {
  return dir ?? path.join(path.dirname(schemaFile), "migrations");
}

/** The steps from what the committed migrations build to what `schema` declares. */
export async function pendingSteps(
  schema: Schema,
  dir: string,
): Promise<{ steps: Step[]; migrations: MigrationFile[] }> {
  const migrations = await readMigrations(dir);
  const states = await scratchStates(migrations, emitSql(schema), { schemas: schemaNamespaces(schema) });
  // resc's own tables (the change feed's outbox, which `resc sql` creates) are written by the capture steps, not diffed.
  const steps = diffCatalogs(withoutHistory(states.current), withoutHistory(states.desired), declaredRenames(schema));
  return { steps, migrations };
}
