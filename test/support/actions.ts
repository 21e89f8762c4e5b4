/**
 * Implementations of the declared actions of the schemas the tests serve
 * (spec.resource's tasks `complete`/`reopen`, Pagila's rental `return`), so
 * a test that serves one of them can mount it: a declared action without an
 * implementation refuses to mount (docs/decisions/1334-declared-actions.md).
 */
import type { Hooks, ServiceDescriptor } from "../../runtime/index.js";
import { trackerActions } from "../../examples/tracker/actions.js";
import { hooks as pagilaHooks } from "../../fixtures/pagila/hooks.js";

const KNOWN: NonNullable<Hooks["actions"]> = { ...trackerActions, ...pagilaHooks.actions };

/** The implementations of every action `service` declares that this module knows, by table and action. */
export function declaredActions(service: ServiceDescriptor): NonNullable<Hooks["actions"]> {
  const out: NonNullable<Hooks["actions"]> = {};
  for (const t of service.tables) {
    for (const a of t.resource?.actions ?? []) {
      const impl = KNOWN[t.name]?.[a.name];
      if (impl) (out[t.name] ??= {})[a.name] = impl;
    }
  }
  return out;
}

/** `hooks` with the implementations of `service`'s declared actions added (the ones `hooks` gives win). */
export function withDeclaredActions(service: ServiceDescriptor, hooks: Hooks = {}): Hooks {
  const actions = declaredActions(service);
  for (const [table, byName] of Object.entries(hooks.actions ?? {})) actions[table] = { ...actions[table], ...byName };
  return Object.keys(actions).length === 0 ? hooks : { ...hooks, actions };
}
