/**
 * `resc dev --hooks MODULE` and `resc serve --hooks MODULE`: loads the application's hooks from a
 * TypeScript or JavaScript module, so schemas that need hooks (`@@scoped`,
 * `@stamped`, actions) can be served without writing a server. The module
 * contract is docs/decisions/0603-dev-hooks-module.md.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Context } from "hono";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Hooks } from "../../runtime/hooks.js";
import type { WebhookSubscription } from "../../runtime/events/webhooks.js";

/** What a hooks module gives `resc dev`. */
export interface HooksModule {
  hooks: Hooks;
  /** Derives each request's hook data (`MountOptions.hookData`), when the module exports one. */
  hookData?: (c: Context) => object | undefined;
  /**
   * The caller's identity `Idempotency-Key`s are scoped by (`MountOptions.idempotencyScope`,
   * docs/decisions/1360-idempotency-scope.md), when the module exports `idempotencyScope(c)`.
   */
  idempotencyScope?: (c: Context) => unknown;
  /**
   * Webhook subscriptions, when the module exports `webhooks`: an array of them, or a function of the
   * service descriptor returning one (docs/decisions/1338-webhooks.md). URLs and secrets come from the
   * module, which reads them from its configuration (the environment), never from the schema.
   */
  webhooks?: WebhookSubscription[];
}

const KINDS = new Set(["beforeQuery", "beforeCreate", "validateCreate", "afterCommit", "actions"]);

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks that `v` has the shape of {@link Hooks}: only the four hook kinds,
 * each a map of table name to function, and `actions`, a map of table name
 * to a map of action name to function.
 * @returns the problems found, empty when none
 */
function shapeProblems(v: unknown): string[] {
  if (!isRecord(v)) return ["the hooks are not an object"];
  const out: string[] = [];
  for (const [kind, byTable] of Object.entries(v)) {
    if (!KINDS.has(kind)) {
      out.push(
        `unknown hook kind "${kind}" (expected beforeQuery, beforeCreate, validateCreate, afterCommit or actions)`,
      );
    } else if (!isRecord(byTable)) {
      out.push(`${kind} is not an object of functions by table name`);
    } else if (kind === "actions") {
      // Action implementations are one level deeper: by table, then by action name.
      for (const [table, byAction] of Object.entries(byTable)) {
        if (!isRecord(byAction)) out.push(`actions.${table} is not an object of functions by action name`);
        else
          for (const [name, fn] of Object.entries(byAction))
            if (typeof fn !== "function") out.push(`actions.${table}.${name} is not a function`);
      }
    } else {
      for (const [table, fn] of Object.entries(byTable)) {
        if (typeof fn !== "function") out.push(`${kind}.${table} is not a function`);
      }
    }
  }
  return out;
}

/** Imports `file`: through tsx for TypeScript, natively for JavaScript. */
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path.resolve(file)).href;
  if (/\.[cm]?tsx?$/.test(file)) {
    const { tsImport } = await import("tsx/esm/api");
    return (await tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(url)) as Record<string, unknown>;
}

/**
 * Loads the hooks module `file` for `service`. The module exports `hooks`
 * (or, failing that, a default export): a {@link Hooks} object, or a
 * function of the service descriptor returning one (possibly async). An
 * optional named export `hookData(c)` gives each request's hook data, and
 * `idempotencyScope(c)` the caller's identity `Idempotency-Key`s are scoped by.
 * @throws Error with a one-line reason when the module cannot be loaded or
 *   does not follow the contract
 */
export async function loadHooksModule(file: string, service: ServiceDescriptor): Promise<HooksModule> {
  let mod: Record<string, unknown>;
  try {
    mod = await importModule(file);
  } catch (e) {
    throw new Error(`cannot load hooks module ${file}: ${(e as Error).message}`);
  }
  const exported = mod.hooks ?? mod.default;
  if (exported === undefined) throw new Error(`hooks module ${file} exports neither "hooks" nor a default export`);
  const hooks: unknown =
    typeof exported === "function" ? await (exported as (s: ServiceDescriptor) => unknown)(service) : exported;
  const problems = shapeProblems(hooks);
  if (problems.length > 0) throw new Error(`hooks module ${file}: ${problems.join("; ")}`);
  const out: HooksModule = { hooks: hooks as Hooks };
  if (mod.hookData !== undefined) {
    if (typeof mod.hookData !== "function") throw new Error(`hooks module ${file}: hookData is not a function`);
    out.hookData = mod.hookData as (c: Context) => object | undefined;
  }
  if (mod.idempotencyScope !== undefined) {
    if (typeof mod.idempotencyScope !== "function")
      throw new Error(`hooks module ${file}: idempotencyScope is not a function`);
    out.idempotencyScope = mod.idempotencyScope as (c: Context) => unknown;
  }
  if (mod.webhooks !== undefined) {
    const subs: unknown =
      typeof mod.webhooks === "function"
        ? await (mod.webhooks as (s: ServiceDescriptor) => unknown)(service)
        : mod.webhooks;
    const bad = !Array.isArray(subs)
      ? "webhooks is not an array of subscriptions"
      : subs
          .map((s, i) =>
            isRecord(s) && ["name", "table", "url", "secret"].every((k) => typeof s[k] === "string")
              ? undefined
              : `webhooks[${i}] needs name, table, url and secret, each a string`,
          )
          .find((p) => p !== undefined);
    if (bad !== undefined) throw new Error(`hooks module ${file}: ${bad}`);
    out.webhooks = subs as WebhookSubscription[];
  }
  return out;
}
