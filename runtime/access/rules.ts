/**
 * Declared access rules judged for one principal (docs/decisions/1367-access-rules.md):
 * which `access` blocks grant an operation, the row rule they make (the
 * predicate tree, claim values as bind parameters), the check a written row
 * must pass, the columns stamped from claims and those hidden.
 */
import type { AccessDescriptor, Rule, ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Principal } from "../auth/principal.js";
import type { HookOperation } from "../hooks.js";
import { and, cmp, not, or, type Comparison, type Predicate, type Related } from "../predicate.js";

/**
 * An operation as the rules name it: `list`, `read`, `create`, `update`,
 * `delete`, `events`, or a declared action's name.
 */
export type RuleOperation = string;

/** A predicate no row satisfies (an empty disjunction is FALSE). */
export const NOTHING: Predicate = or();

/**
 * The rule operation a hook call on `table` stands for: an expansion reads
 * its target (`read`), an action is its own name, the rest are themselves.
 * On a table whose resource serves no `read` (a link table served with
 * `list` only; docs/decisions/0205-composite-keys.md), where no block can grant
 * `read`, a read of its rows (an expansion onto it, a written reference
 * naming it) is judged by `list` instead: its rows are read by listing them.
 */
export function ruleOperation(operation: HookOperation, action?: string, table?: TableDescriptor): RuleOperation {
  if (operation === "expand" || operation === "read") return table?.resource?.ops.read === false ? "list" : "read";
  if (operation === "action") return action ?? "action";
  return operation;
}

/** Whether the service governs access by declared rules: an `auth` block is declared. */
export function governed(service: ServiceDescriptor): boolean {
  return service.auth !== undefined;
}

/** The `access` blocks of `table` granting `op` to one of the principal's roles, in source order. */
export function grantsOf(table: TableDescriptor, principal: Principal, op: RuleOperation): AccessDescriptor[] {
  return (table.access ?? []).filter((a) => a.ops.includes(op) && a.roles.some((r) => principal.roles.includes(r)));
}

/** Whether one of the principal's roles may use `op` on `table`. */
export function granted(table: TableDescriptor, principal: Principal, op: RuleOperation): boolean {
  return grantsOf(table, principal, op).length > 0;
}

/**
 * A rule over `table` as a predicate for `principal`. A comparison with a
 * claim the principal lacks (an optional claim, or the anonymous role's
 * `sub`) is FALSE, as SQL's comparison with NULL is never true; `is null`
 * and `is not null` take no value and stay themselves. A comparison through
 * a forward relation (`list.org_id`) becomes a {@link Related} condition on
 * the referenced row, found in `service`.
 * @throws Error when the relation is not a forward relation of `table` (the validator refuses such a rule)
 */
export function rulePredicate(
  service: ServiceDescriptor,
  table: TableDescriptor,
  rule: Rule,
  principal: Principal,
): Predicate {
  switch (rule.kind) {
    case "and":
      return and(...rule.children.map((c) => rulePredicate(service, table, c, principal)));
    case "or":
      return or(...rule.children.map((c) => rulePredicate(service, table, c, principal)));
    case "not":
      return not(rulePredicate(service, table, rule.child, principal));
    case "cmp": {
      let leaf: Predicate;
      if (rule.value === undefined) leaf = cmp(rule.column, rule.op);
      else {
        const value = "claim" in rule.value ? principal.claims[rule.value.claim] : rule.value.literal;
        if (value === null || value === undefined) return NOTHING;
        leaf = cmp(rule.column, rule.op, value as Comparison["value"]);
      }
      if (rule.relation === undefined) return leaf;
      const rel = table.relations.find((r) => r.name === rule.relation && r.kind === "forward");
      const target = rel && service.tables.find((t) => t.name === rel.target);
      if (!rel || !target) throw new Error(`table "${table.name}" has no forward relation "${rule.relation}"`);
      const related: Related = {
        kind: "related",
        relation: rel.name,
        column: rel.column,
        target,
        targetColumn: rel.targetColumn,
        where: leaf,
      };
      return related;
    }
  }
}

/** The rule applying to `op` in one access block: every row rule without operations or naming it, AND-ed. */
function blockRule(
  service: ServiceDescriptor,
  table: TableDescriptor,
  block: AccessDescriptor,
  op: RuleOperation,
  principal: Principal,
): Predicate {
  return and(
    ...block.rows
      .filter((r) => !r.ops || r.ops.includes(op))
      .map((r) => rulePredicate(service, table, r.rule, principal)),
  );
}

/** True for the predicate `and()` (TRUE), which confines nothing. */
export function isEverything(p: Predicate): boolean {
  return p.kind === "and" && p.children.length === 0;
}

/**
 * The rows `principal` may reach on `table` with `op`: the rules of every
 * granting block OR-ed (a principal of several roles gets the union), or
 * {@link NOTHING} when no block grants it. `and()` (TRUE) when a grant has
 * no row rule.
 */
export function accessScope(
  service: ServiceDescriptor,
  table: TableDescriptor,
  principal: Principal,
  op: RuleOperation,
): Predicate {
  const grants = grantsOf(table, principal, op);
  if (grants.length === 0) return NOTHING;
  const rules = grants.map((g) => blockRule(service, table, g, op, principal));
  return rules.some(isEverything) ? and() : or(...rules);
}

/**
 * The check a row written by `op` must pass, or undefined when nothing
 * limits it: per granting block its `check`, else its row rule for `op`
 * (PostgreSQL's WITH CHECK defaulting to USING); the blocks OR-ed.
 */
export function accessCheck(
  service: ServiceDescriptor,
  table: TableDescriptor,
  principal: Principal,
  op: RuleOperation,
): Predicate | undefined {
  const grants = grantsOf(table, principal, op);
  if (grants.length === 0) return NOTHING;
  const rules = grants.map((g) =>
    g.check ? rulePredicate(service, table, g.check, principal) : blockRule(service, table, g, op, principal),
  );
  return rules.some(isEverything) ? undefined : or(...rules);
}

/**
 * The values the granting blocks of `create` stamp from claims, by column:
 * the first block (in source order) stamping a column wins. A claim the
 * principal lacks stamps null (the database's NOT NULL then refuses it).
 */
export function stampsOf(table: TableDescriptor, principal: Principal): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const g of grantsOf(table, principal, "create")) {
    for (const s of g.stamps) if (!(s.column in out)) out[s.column] = principal.claims[s.claim] ?? null;
  }
  return out;
}

/**
 * The columns some `access` block of `table` stamps from a claim: the
 * service sets them for the roles of those blocks, which may not send them,
 * so no client may require them of every caller (a role that stamps
 * nothing still sends them, and the service refuses a create without one).
 */
export function stampedColumns(table: TableDescriptor): Set<string> {
  return new Set((table.access ?? []).flatMap((a) => a.stamps.map((s) => s.column)));
}

/**
 * The roles a column is hidden from (docs/decisions/1367-access-rules.md):
 * a role is listed when every block naming it hides `column` (one block
 * per role and table, so: when its block hides it). Roles in block order,
 * each once. A caller with any of them does not receive the column, so no
 * generated read type may promise it (the typed client, the OpenAPI row).
 */
export function rolesHiding(blocks: readonly AccessDescriptor[], column: string): string[] {
  const roles: string[] = [];
  for (const b of blocks) for (const r of b.roles) if (!roles.includes(r)) roles.push(r);
  return roles.filter((r) => blocks.filter((b) => b.roles.includes(r)).every((b) => b.hide.includes(column)));
}

/**
 * The columns hidden from `principal` on `table`: those any block naming one
 * of its roles hides. Rows and columns are granted separately, so showing a
 * column one role hides because another role shows it would serve it on rows
 * only the hiding role reaches: a column hidden from any of the caller's
 * roles stays hidden (docs/decisions/1367-access-rules.md).
 */
export function hiddenFor(table: TableDescriptor, principal: Principal): Set<string> {
  const blocks = (table.access ?? []).filter((a) => a.roles.some((r) => principal.roles.includes(r)));
  return new Set(blocks.flatMap((b) => b.hide));
}
