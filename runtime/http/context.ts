/**
 * What every handler of one resource shares: built once at mount, so no
 * request does schema work (architecture: descriptors are prepared at mount).
 */
import type { Context } from "hono";
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { CommitEvent, HookContext, HookData, HookOperation, Hooks } from "../hooks.js";
import type { Predicate } from "../predicate.js";
import type { ProblemError } from "../problem.js";
import type { Admission } from "./admission.js";
import { principalOf } from "../auth/principal.js";
import { confine, expansionScopes as scopesOfExpansions, type HookBase } from "../hooks/scope.js";

/** Per-resource state captured by the route handlers. */
export interface ResourceContext {
  service: ServiceDescriptor;
  table: TableDescriptor;
  db: Executor;
  /** Where list and read statements go (read replicas); `db` when absent. Writes and hooks use `db`. */
  readDb?: Executor;
  hooks: Hooks;
  /** Derives the hooks' `data` from a request (`MountOptions.hookData`); absent when the application gives none. */
  hookData?: (c: Context) => HookData | undefined;
  /** Full collection path including any base path, e.g. `/api/films`. */
  collectionPath: string;
  /**
   * Logs a fault answered with a 5xx (`problem` is what was answered), or an
   * error an AfterCommit hook threw (no problem: the client got its 2xx).
   */
  logError: (e: unknown, c: Context, problem?: ProblemError) => void;
  /**
   * Set for one request whose transaction an outer layer commits (an
   * `Idempotency-Key` request, runtime/http/idempotency.ts): AfterCommit
   * events are queued here and run by that layer after its commit.
   */
  deferred?: CommitEvent[];
  /**
   * The resource's share of the pool (docs/decisions/0911-lock-timeout.md).
   * The read route admits each statement it sends rather than each request,
   * since reads answered together hold one connection
   * (docs/decisions/1348-reads-batched-per-turn.md); the other routes admit
   * each request.
   */
  admission?: Admission;
}

/** What every hook of this request receives besides the table and operation (docs/decisions/0600-hooks.md). */
function base(rc: ResourceContext, c: Context | undefined): HookBase {
  const b: HookBase = { db: rc.db };
  if (c !== undefined) {
    b.http = c;
    const data = rc.hookData?.(c);
    if (data !== undefined) b.data = data;
    const principal = principalOf(c);
    if (principal !== undefined) b.principal = principal;
  }
  return b;
}

/** The hook context of a request for `operation` on `table`. */
export function hookContext(
  rc: ResourceContext,
  table: string,
  operation: HookOperation,
  c: Context | undefined,
): HookContext {
  return { ...base(rc, c), table, operation };
}

/**
 * The BeforeQuery predicate of `tableName` for this request, if a hook is
 * registered. For operation `action`, `action` names the declared action,
 * as the hook's context says (the declared rules grant and confine each
 * action by its name).
 * @throws HookError when the hook's predicate does not fit the table (answered 500)
 */
export async function scopeOf(
  rc: ResourceContext,
  tableName: string,
  operation: HookOperation,
  c: Context | undefined,
  action?: string,
): Promise<Predicate | undefined> {
  const table = tableName === rc.table.name ? rc.table : rc.service.tables.find((t) => t.name === tableName);
  if (!table) return undefined;
  const b = base(rc, c);
  if (action !== undefined) b.action = action;
  return confine(rc.hooks, table, operation, b);
}

/**
 * The BeforeQuery predicates of every relation target being expanded, as a
 * lookup the SQL compiler calls while building the join (spec: Expansion
 * rule 6). Hooks are awaited here because the compiler is synchronous.
 * @throws HookError naming the relation when a predicate cannot be requalified
 */
export async function expansionScopes(
  rc: ResourceContext,
  expand: string[],
  c: Context | undefined,
): Promise<(tableName: string) => Predicate | undefined> {
  return scopesOfExpansions(rc.hooks, rc.service, rc.table, expand, base(rc, c));
}
