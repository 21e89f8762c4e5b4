/**
 * Running BeforeQuery hooks: the one place that turns registered hooks into
 * the predicates a statement is confined by, for HTTP handlers and the
 * in-process query builder alike (spec: Events; Expansion rule 6).
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { HookContext, HookOperation, Hooks } from "../hooks.js";
import { and, cmp, type Predicate } from "../predicate.js";
import { compilableOperators } from "../sql/comparison.js";
import { HookError } from "../hook-error.js";

/** What a hook context carries besides the table and operation. */
export type HookBase = Omit<HookContext, "table" | "operation">;

/**
 * Checks that `p` can confine `table`: every comparison names a column of
 * the table with an operator it takes, and is unqualified or qualified with
 * the table itself. On an expansion (`relation` given) a raw predicate is
 * refused too, since it cannot be moved onto the joined table with
 * certainty; it is never dropped (spec: Expansion rule 6).
 * @throws HookError naming the table (and the relation), never a column
 */
function checkScope(p: Predicate, table: TableDescriptor, relation: string | undefined): void {
  const fail = (reason: string): never => {
    throw new HookError("beforeQuery", table.name, reason, relation);
  };
  switch (p.kind) {
    case "raw":
      if (relation !== undefined)
        fail("it returned a raw SQL predicate, which cannot be requalified onto the joined table");
      return;
    case "cmp": {
      if (p.table !== undefined && p.table !== table.name) {
        fail(`it returned a comparison qualified with table "${p.table}", not "${table.name}"`);
      }
      const col = table.columns.find((c) => c.name === p.column);
      if (!col) fail("it returned a comparison on a column the table does not have");
      else if (!compilableOperators(col).includes(p.op)) {
        fail(`it returned a comparison using operator ${p.op} on a column that does not take it`);
      }
      return;
    }
    case "not":
      return checkScope(p.child, table, relation);
    case "related":
      if (!table.columns.some((c) => c.name === p.column))
        fail("it returned a condition through a relation on a column the table does not have");
      return;
    default:
      for (const c of p.children) checkScope(c, table, relation);
  }
}

async function runHook(
  hooks: Hooks,
  table: TableDescriptor,
  operation: HookOperation,
  base: HookBase,
  relation?: string,
  live = true,
): Promise<Predicate | undefined> {
  const hook = hooks.beforeQuery?.[table.name];
  const p = hook ? await hook({ ...base, table: table.name, operation }) : undefined;
  if (p !== undefined) checkScope(p, table, relation);
  // resc's own soft-delete filter: a marked row is gone for every read (docs/decisions/1367-access-rules.md).
  if (table.softDeleteColumn === undefined || !live) return p;
  const unmarked = cmp(table.softDeleteColumn, "isnull");
  return p === undefined ? unmarked : and(p, unmarked);
}

/**
 * The BeforeQuery predicate confining `table` for one read or write target,
 * AND-ed with resc's own soft-delete filter (`<marker> IS NULL`) when the
 * table has a soft-delete column and `live` (false only for unconfined
 * in-process queries; docs/decisions/1367-access-rules.md),
 * or undefined when no hook is registered or the hook adds nothing.
 * @throws HookError when the predicate does not fit the table
 */
export function confine(
  hooks: Hooks,
  table: TableDescriptor,
  operation: HookOperation,
  base: HookBase,
  live = true,
): Promise<Predicate | undefined> {
  return runHook(hooks, table, operation, base, undefined, live);
}

/**
 * The BeforeQuery predicates of every table reached by the expansions
 * `expand` of `table`, as the lookup the SQL compiler calls while building
 * each join (`CompileOptions.scopeFor`). Hooks run here, once per target
 * table, with operation `expand`, because the compiler is synchronous.
 * @throws HookError naming the relation when a target's predicate cannot
 *   be requalified onto the joined table
 */
export async function expansionScopes(
  hooks: Hooks,
  service: ServiceDescriptor,
  table: TableDescriptor,
  expand: readonly string[],
  base: HookBase,
  live = true,
): Promise<(tableName: string) => Predicate | undefined> {
  const scopes = new Map<string, Predicate | undefined>();
  for (const name of expand) {
    const rel = table.relations.find((r) => r.name === name);
    const target = rel && service.tables.find((t) => t.name === rel.target);
    if (rel && target && !scopes.has(target.name)) {
      scopes.set(target.name, await runHook(hooks, target, "expand", base, rel.name, live));
    }
  }
  return (tableName) => scopes.get(tableName);
}
