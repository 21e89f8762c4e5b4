/**
 * Declared actions (docs/decisions/1334-declared-actions.md): an item action
 * addresses one row by `{id}`, so its table needs a single-column key (as
 * read, update and delete do); every action locks and writes inside one
 * transaction, so a resource that disables transactions declares none; a
 * collection action's path `/<resource>/<name>` must not be one the service
 * serves already.
 */
import type { ActionDecl, FieldDecl, TableDecl } from "../../language/ir.js";
import { settingSpan, type ValidationContext } from "./context.js";
import { checkKnown } from "./types.js";

/**
 * Path segments after a collection path that resc serves or keeps for
 * itself: a collection action may not take one (`events` is the change
 * feed's, docs/decisions/1334-declared-actions.md).
 */
export const RESERVED_ACTION_NAMES: readonly string[] = ["events"];

function checkFields(ctx: ValidationContext, table: TableDecl, action: ActionDecl, fields: readonly FieldDecl[]): void {
  for (const field of fields) {
    if (!ctx.index.domains.has(field.type.name))
      checkKnown(ctx, field.type, `field "${field.name}" of action ${table.name}.${action.name}`, field.type.span);
  }
}

/** Reports `action-needs-key`, `action-needs-transaction` and `reserved-action-name`, and unknown field types. */
export function checkActions(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    const resource = table.resource;
    if (!resource?.actions) continue;
    for (const action of resource.actions) {
      checkFields(ctx, table, action, action.input);
      if (action.output) checkFields(ctx, table, action, action.output);
      if (action.target === "item" && table.primaryKey.length > 1)
        ctx.error(
          "action-needs-key",
          `action "${action.name}" is served at ${resource.path}/{id}/${action.name}, which needs a single-column primary key, but table "${table.name}" has a composite key (${table.primaryKey.join(", ")}); declare it @collection or give the table a single key`,
          action.nameSpan,
        );
      if (action.target === "collection" && RESERVED_ACTION_NAMES.includes(action.name))
        ctx.error(
          "reserved-action-name",
          `a collection action cannot be called "${action.name}": ${resource.path}/${action.name} is kept for the service itself (${RESERVED_ACTION_NAMES.join(", ")})`,
          action.nameSpan,
        );
    }
    if (resource.disableTransactions)
      ctx.error(
        "action-needs-transaction",
        `resource "${resource.path}" declares actions, which run in a transaction, but sets disable_transactions`,
        settingSpan(resource, "disable_transactions"),
      );
  }
}
