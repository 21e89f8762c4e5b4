/**
 * Stand-ins for the hooks a schema requires and the application has not
 * written yet (docs/decisions/1363-docs-commands-tested.md): each answers
 * 501 `/problems/not-implemented` naming the hook to write, so a project
 * that `resc init --schema` made starts and serves everything else. The
 * requirements are the registration check's (`registration.ts`): a
 * BeforeQuery hook for `@@scoped` tables, a BeforeCreate
 * hook for `@stamped` columns of a resource that creates, an
 * implementation for every declared action.
 */
import { actionPath, type ServiceDescriptor } from "../descriptor.js";
import type { ActionImplementation, Hooks } from "../hooks.js";
import { problem, type ProblemError } from "../problem.js";
import { confiningDeclarations } from "./registration.js";
import { withDeclaredRules } from "../access/hooks.js";

/** One hook the schema requires that `hooks` lacks. */
export interface MissingHook {
  /** Which map of {@link Hooks} it belongs in. */
  kind: "beforeQuery" | "beforeCreate" | "actions";
  /** The table it is registered under (schema spelling). */
  table: string;
  /** For `actions`, the declared action's name. */
  action?: string;
  /** Where it is registered, as the registration errors spell it: `hooks.actions.rental.return`. */
  hook: string;
  /** What requires it: `@@scoped on table users`, `action return on table rental (POST /rentals/{id}/return)`. */
  declaration: string;
}

/**
 * Every hook `service` requires that `hooks` lacks, in table order:
 * BeforeQuery, then BeforeCreate, then each action. Unlike the registration
 * check, a confining hook is asked of every table declaring one, served or
 * not, so a stub is already there when a relation starts to reach it.
 */
export function missingHooks(service: ServiceDescriptor, given: Hooks): MissingHook[] {
  // Declared access rules confine and stamp as hooks do: only what they leave is missing (decision 1367).
  const hooks = withDeclaredRules(service, given);
  const out: MissingHook[] = [];
  for (const table of service.tables) {
    const confining = confiningDeclarations(table);
    if (confining.length > 0 && hooks.beforeQuery?.[table.name] === undefined)
      out.push({
        kind: "beforeQuery",
        table: table.name,
        hook: `hooks.beforeQuery.${table.name}`,
        declaration: confining.join(", "),
      });
    const stamped = table.columns.filter((c) => c.stamped).map((c) => `@stamped column ${table.name}.${c.name}`);
    if (table.resource?.ops.create && stamped.length > 0 && hooks.beforeCreate?.[table.name] === undefined)
      out.push({
        kind: "beforeCreate",
        table: table.name,
        hook: `hooks.beforeCreate.${table.name}`,
        declaration: stamped.join(", "),
      });
    for (const action of table.resource?.actions ?? []) {
      if (typeof hooks.actions?.[table.name]?.[action.name] === "function") continue;
      out.push({
        kind: "actions",
        table: table.name,
        action: action.name,
        hook: `hooks.actions.${table.name}.${action.name}`,
        declaration: `action ${action.name} on table ${table.name} (POST ${actionPath(table.resource!.path, action)})`,
      });
    }
  }
  return out;
}

/** The 501 a stub answers with: the detail names the hook to write and what requires it. */
function notImplemented(missing: MissingHook): ProblemError {
  return problem(
    "not-implemented",
    `${missing.hook} is not written yet: ${missing.declaration} requires it (see resc's docs/hooks.md).`,
  );
}

/**
 * `hooks` with a stub for each of {@link missingHooks}: a stub throws the
 * 501 problem naming itself, so the request it would serve is refused and
 * nothing is read or written. What `hooks` has is kept as it is. A
 * `@@scoped` table is therefore never served unconfined: its stub refuses
 * every read (a list, a read, an expansion onto it, a feed).
 */
export function stubMissingHooks(service: ServiceDescriptor, hooks: Hooks): Hooks {
  const out: Hooks = {
    ...hooks,
    beforeQuery: { ...hooks.beforeQuery },
    beforeCreate: { ...hooks.beforeCreate },
    actions: Object.fromEntries(Object.entries(hooks.actions ?? {}).map(([t, a]) => [t, { ...a }])),
  };
  for (const missing of missingHooks(service, hooks)) {
    const { kind, table, action } = missing;
    const refuse = (): never => {
      throw notImplemented(missing);
    };
    if (kind === "beforeQuery") out.beforeQuery![table] = refuse;
    else if (kind === "beforeCreate") out.beforeCreate![table] = refuse;
    else (out.actions![table] ??= {})[action!] = refuse satisfies ActionImplementation;
  }
  return out;
}
