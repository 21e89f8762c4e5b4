/**
 * `resc dev` keeps your rows when the schema changes: the embedded database
 * made from an earlier schema is brought to the current one with the steps
 * `resc migrate diff` would write, applied in one transaction. A step that
 * can lose data stops the start, naming each, unless `--accept-data-loss`
 * (docs/decisions/1241-dev-keeps-data.md). resc's own bookkeeping (the
 * migration history an `npm start` of a `resc init` project keeps in the
 * same directory) is never part of the comparison.
 */
import { EmbeddedDatabaseError } from "../../runtime/exec/embedded.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { catalogOfDdl, diffCatalogs, readCatalog, withoutHistory } from "../../catalog/index.js";

/** What {@link migrateEmbedded} did: the steps applied, or the data-losing steps it refused. */
export type EmbeddedMigration = { applied: number } | { refused: string[] };

/**
 * Brings the embedded database `db` to `ddl`'s schema in one transaction.
 * @param renames from `declaredRenames(schema)`
 * @returns the number of steps applied, or, when a step would lose data and `acceptDataLoss` is false, why each would (nothing applied)
 * @throws the driver's error when a step fails (the transaction is rolled back)
 */
export async function migrateEmbedded(
  db: Executor,
  ddl: string,
  renames: ReadonlyMap<string, string>,
  acceptDataLoss: boolean,
  schemas: readonly string[] = ["public"],
): Promise<EmbeddedMigration> {
  const live = withoutHistory(await readCatalog(db, schemas));
  const steps = diffCatalogs(live, withoutHistory(await catalogOfDdl(ddl, { schemas })), renames);
  const losses = steps.flatMap((s) => (s.destructive ? [s.destructive] : []));
  if (losses.length > 0 && !acceptDataLoss) return { refused: losses };
  if (steps.length > 0) await db.script(`BEGIN;\n${steps.map((s) => s.sql).join("\n")}\nCOMMIT;`);
  return { applied: steps.length };
}

/**
 * A `migrate` callback for `openEmbeddedDatabase`.
 * @param renames from `declaredRenames(schema)`
 * @throws EmbeddedDatabaseError listing the destructive steps, when not accepted
 */
export function evolveEmbedded(
  ddl: string,
  renames: ReadonlyMap<string, string>,
  acceptDataLoss: boolean,
  log: (line: string) => void,
  schemas: readonly string[] = ["public"],
): (db: Executor) => Promise<void> {
  return async (db) => {
    const result = await migrateEmbedded(db, ddl, renames, acceptDataLoss, schemas);
    if ("refused" in result) {
      throw new EmbeddedDatabaseError(
        `the schema changed in ways that lose data in the embedded database:\n${result.refused.map((s) => `  - ${s}`).join("\n")}\n` +
          "start with --accept-data-loss to apply them anyway, or --reset to start from an empty database",
      );
    }
    const n = result.applied;
    // A change of what is served only (an attribute, a comment) leaves the tables as they are.
    if (n === 0) return log("the schema changed; the embedded database already matches it");
    log(`migrated the embedded database to the changed schema (${n} step${n === 1 ? "" : "s"}); rows kept`);
  };
}
