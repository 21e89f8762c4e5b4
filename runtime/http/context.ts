/**
 * What every handler of one resource shares: built once at mount, so no
 * request does schema work (architecture: descriptors are prepared at mount).
 */
import type { Context } from "hono";
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { HookContext, HookOperation, Hooks } from "../hooks.js";
import type { Predicate } from "../predicate.js";

/** Per-resource state captured by the route handlers. */
export interface ResourceContext {
  service: ServiceDescriptor;
  table: TableDescriptor;
  db: Executor;
  hooks: Hooks;
  /** Full collection path including any base path, e.g. `/api/films`. */
  collectionPath: string;
  /** Logs a fault that was answered with a 5xx; never receives request text. */
  logError: (e: unknown) => void;
}

/** The BeforeQuery predicate of `tableName` for this request, if a hook is registered. */
export async function scopeOf(
  rc: ResourceContext,
  tableName: string,
  operation: HookOperation,
  c: Context | undefined,
): Promise<Predicate | undefined> {
  const hook = rc.hooks.beforeQuery?.[tableName];
  if (!hook) return undefined;
  const ctx: HookContext = { table: tableName, operation, http: c };
  return hook(ctx);
}

/**
 * The BeforeQuery predicates of every relation target being expanded, as a
 * lookup the SQL compiler calls while building the join (spec: Expansion
 * rule 6). Hooks are awaited here because the compiler is synchronous.
 */
export async function expansionScopes(
  rc: ResourceContext,
  expand: string[],
  c: Context | undefined,
): Promise<(tableName: string) => Predicate | undefined> {
  const scopes = new Map<string, Predicate | undefined>();
  for (const name of expand) {
    const rel = rc.table.relations.find((r) => r.name === name);
    if (rel && !scopes.has(rel.target)) scopes.set(rel.target, await scopeOf(rc, rel.target, "expand", c));
  }
  return (tableName) => scopes.get(tableName);
}
