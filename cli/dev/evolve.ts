/**
 * `resc dev` keeps your rows when the schema changes (issue #11 §4): the
 * embedded database made from an earlier schema is brought to the current
 * one with the steps `resc migrate diff` would write, applied in one
 * transaction. A step that can lose data stops the start, naming each,
 * unless `--accept-data-loss` (docs/decisions/1241-dev-keeps-data.md).
 */
import { EmbeddedDatabaseError } from "../../runtime/exec/embedded.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { readCatalog } from "../migrate/catalog.js";
import { diffCatalogs } from "../migrate/diff.js";
import { catalogOfDdl } from "../migrate/scratch.js";

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
): (db: Executor) => Promise<void> {
  return async (db) => {
    const steps = diffCatalogs(await readCatalog(db, "public"), await catalogOfDdl(ddl), renames);
    const losses = steps.filter((s) => s.destructive);
    if (losses.length > 0 && !acceptDataLoss) {
      throw new EmbeddedDatabaseError(
        `the schema changed in ways that lose data in the embedded database:\n${losses.map((s) => `  - ${s.destructive}`).join("\n")}\n` +
          "start with --accept-data-loss to apply them anyway, or --reset to start from an empty database",
      );
    }
    if (steps.length > 0) {
      await db.script(`BEGIN;\n${steps.map((s) => s.sql).join("\n")}\nCOMMIT;`);
    }
    log(
      `migrated the embedded database to the changed schema (${steps.length} step${steps.length === 1 ? "" : "s"}); rows kept`,
    );
  };
}
