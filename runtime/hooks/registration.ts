/**
 * Registration checks (spec: Column capabilities, last paragraph): a table
 * declaring `@@scoped` is served only once a BeforeQuery hook or a declared
 * access rule confines it; one whose resource creates rows and has a
 * `@stamped` column, only once a BeforeCreate hook or a declared stamp sets
 * it. A `@soft_delete` column is confined by resc's own filter, so it needs
 * no hook (docs/decisions/1367-access-rules.md). Decisions in
 * docs/decisions/0600-hooks.md and 1253-create-body-completeness.md.
 */
import { actionPath, type ServiceDescriptor, type TableDescriptor } from "../descriptor.js";
import type { Hooks } from "../hooks.js";

/**
 * One registration the service lacks, or one it has that names no table.
 * Returned by `mountService` (never thrown), all of them at once.
 */
export interface RegistrationError {
  /**
   * The resource at fault: its collection path with any base path
   * (`/api/users`); for a hook naming no table of the schema, where the
   * hook was registered (`hooks.beforeQuery.taks`).
   */
  resource: string;
  /** The table the registration is about (schema spelling). */
  table: string;
  /**
   * `missing-hook`: a required BeforeQuery (or, for `@stamped`, BeforeCreate)
   * hook is absent; `unknown-table`: a hook names no table of the schema;
   * `missing-action`: a declared action has no implementation;
   * `unknown-action`: an implementation names no declared action
   * (docs/decisions/1334-declared-actions.md); `invalid-webhook`: a webhook
   * subscription cannot run (docs/decisions/1338-webhooks.md).
   */
  kind: "missing-hook" | "unknown-table" | "missing-action" | "unknown-action" | "invalid-webhook";
  /**
   * For `missing-hook`, the declaration requiring the hook:
   * `@@scoped on table users` or `@stamped column lists.org_id`.
   */
  declaration?: string;
  /** One line saying all of the above, for logs and `resc dev`. */
  message: string;
}

/** The declarations of `table` that require a BeforeQuery hook, as the schema spells them. */
export function confiningDeclarations(table: TableDescriptor): string[] {
  const out: string[] = [];
  if (table.scoped) out.push(`@@scoped on table ${table.name}`);
  return out;
}

function missing(resource: string, table: TableDescriptor, via?: string): RegistrationError[] {
  const reach = via === undefined ? "" : ` (${resource} expands onto it through "${via}")`;
  return confiningDeclarations(table).map((declaration) => ({
    resource,
    table: table.name,
    kind: "missing-hook",
    declaration,
    message: `${resource}: ${declaration} requires a BeforeQuery hook (hooks.beforeQuery.${table.name}) before it is served${reach}`,
  }));
}

/**
 * Every registration error of serving `service` with `hooks`, in table
 * order: each served table, and each table an expandable relation of a
 * served table reaches without being served itself, that declares
 * `@@scoped` and has no BeforeQuery hook (one error
 * per declaration); then each hook registered under a name that is not a
 * table of the schema. Empty when the service may be served.
 *
 * @param basePath prefix of every route (`/api`), so errors name the path a client uses
 */
export function registrationErrors(service: ServiceDescriptor, hooks: Hooks, basePath = ""): RegistrationError[] {
  const errors: RegistrationError[] = [];
  const byName = new Map(service.tables.map((t) => [t.name, t]));
  const confined = (t: TableDescriptor): boolean => hooks.beforeQuery?.[t.name] !== undefined;
  for (const table of service.tables) {
    if (!table.resource) continue;
    const path = basePath + table.resource.path;
    if (!confined(table)) errors.push(...missing(path, table));
    if (table.resource.ops.create && hooks.beforeCreate?.[table.name] === undefined) {
      // A create could never be stored without the hook that sets these (docs/decisions/1253-create-body-completeness.md).
      for (const c of table.columns.filter((c) => c.stamped)) {
        const declaration = `@stamped column ${table.name}.${c.name}`;
        errors.push({
          resource: path,
          table: table.name,
          kind: "missing-hook",
          declaration,
          message: `${path}: ${declaration} requires a BeforeCreate hook (hooks.beforeCreate.${table.name}) before it is served`,
        });
      }
    }
    const reported = new Set<string>();
    for (const rel of table.relations) {
      const target = byName.get(rel.target);
      if (!rel.expandable || !target || target.resource || confined(target) || reported.has(target.name)) continue;
      reported.add(target.name);
      errors.push(...missing(path, target, rel.name));
    }
  }
  errors.push(...actionErrors(service, hooks, basePath));
  for (const [kind, byTable] of Object.entries(hooks) as [string, Record<string, unknown> | undefined][]) {
    for (const name of Object.keys(byTable ?? {})) {
      if (byName.has(name)) continue;
      const at = `hooks.${kind}.${name}`;
      errors.push({
        resource: at,
        table: name,
        kind: "unknown-table",
        message: `${at}: the schema has no table "${name}", so this hook would never run`,
      });
    }
  }
  return errors;
}

/**
 * Declared actions without an implementation, and implementations of no
 * declared action, each naming the route a client would call
 * (docs/decisions/1334-declared-actions.md).
 */
function actionErrors(service: ServiceDescriptor, hooks: Hooks, basePath: string): RegistrationError[] {
  const errors: RegistrationError[] = [];
  for (const table of service.tables) {
    const declared = table.resource?.actions ?? [];
    const given = hooks.actions?.[table.name] ?? {};
    const path = basePath + (table.resource?.path ?? "");
    for (const action of declared) {
      if (typeof given[action.name] === "function") continue;
      const route = actionPath(path, action);
      const declaration = `action ${action.name} on table ${table.name}`;
      errors.push({
        resource: path,
        table: table.name,
        kind: "missing-action",
        declaration,
        message: `${path}: ${declaration} (POST ${route}) requires an implementation (hooks.actions.${table.name}.${action.name}) before it is served`,
      });
    }
    for (const name of Object.keys(given)) {
      if (declared.some((a) => a.name === name)) continue;
      const at = `hooks.actions.${table.name}.${name}`;
      errors.push({
        resource: at,
        table: table.name,
        kind: "unknown-action",
        message: `${at}: table "${table.name}" declares no action "${name}"${table.resource ? "" : " (it is not served)"}, so this implementation would never run`,
      });
    }
  }
  return errors;
}
