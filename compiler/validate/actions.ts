/**
 * Declared actions (docs/decisions/1334-declared-actions.md): an item action
 * addresses one row by `{id}`, so its table needs a single-column key (as
 * read, update and delete do); every action locks and writes inside one
 * transaction, so a resource that disables transactions declares none; an
 * action's name must not clash with what every resource already has in the
 * client, the CLI or its paths (compiler/actions.ts).
 */
import type { ActionDecl, FieldDecl, TableDecl } from "../../language/ir.js";
import { settingSpan, type ValidationContext } from "./context.js";
import { checkKnown } from "./types.js";
import { actionNameClash } from "../actions.js";

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
      const clash = actionNameClash(action.name, action.target);
      if (clash !== undefined)
        ctx.error("reserved-action-name", `an action cannot be called "${action.name}": ${clash}`, action.nameSpan);
    }
    if (resource.disableTransactions)
      ctx.error(
        "action-needs-transaction",
        `resource "${resource.path}" declares actions, which run in a transaction, but sets disable_transactions`,
        settingSpan(resource, "disable_transactions"),
      );
  }
}
