/**
 * Declared access rules as hooks of the existing shape (docs/decisions/1367-access-rules.md;
 * docs/decisions/0600-hooks.md): a BeforeQuery predicate per table (so
 * every surface that confines by BeforeQuery, expansions and the feed
 * included, applies the rules) and a BeforeCreate stamp. A hand-written
 * hook composes with them: its predicate is AND-ed, its stamp runs after.
 */
import type { ServiceDescriptor } from "../descriptor.js";
import type { BeforeCreateHook, BeforeQueryHook, Hooks, RowValues } from "../hooks.js";
import { and } from "../predicate.js";
import { accessScope, governed, isEverything, NOTHING, ruleOperation, stampsOf } from "./rules.js";

/**
 * The service's hooks with its declared rules composed in: for a service
 * with an `auth` block, every table gets a BeforeQuery hook (a table
 * without `access` blocks confines to nothing; a call without a principal,
 * an in-process query given none, too), and every table whose blocks stamp
 * a column a BeforeCreate hook. Without an `auth` block, `hooks` as given.
 */
export function withDeclaredRules(service: ServiceDescriptor, hooks: Hooks): Hooks {
  if (!governed(service)) return hooks;
  const beforeQuery: Record<string, BeforeQueryHook> = { ...hooks.beforeQuery };
  const beforeCreate: Record<string, BeforeCreateHook> = { ...hooks.beforeCreate };
  for (const table of service.tables) {
    const own = hooks.beforeQuery?.[table.name];
    beforeQuery[table.name] = async (ctx) => {
      const principal = ctx.principal;
      const declared = principal
        ? accessScope(service, table, principal, ruleOperation(ctx.operation, ctx.action, table))
        : NOTHING;
      const theirs = own ? await own(ctx) : undefined;
      if (theirs === undefined) return isEverything(declared) ? undefined : declared;
      return isEverything(declared) ? theirs : and(declared, theirs);
    };
    if (!(table.access ?? []).some((a) => a.stamps.length > 0)) continue;
    const ownStamp = hooks.beforeCreate?.[table.name];
    beforeCreate[table.name] = async (ctx, values) => {
      const stamped: RowValues = ctx.principal
        ? { ...values, ...(stampsOf(table, ctx.principal) as RowValues) }
        : { ...values };
      return ownStamp ? ownStamp(ctx, stamped) : stamped;
    };
  }
  return { ...hooks, beforeQuery, beforeCreate };
}
