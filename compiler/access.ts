/**
 * What the operation names of an `access` block stand for
 * (docs/decisions/1367-access-rules.md), stated once for the validator
 * (compiler/validate/access.ts) and the descriptor builder
 * (compiler/descriptor.ts): the named sets `reads`, `crud` and `all`, the
 * order granted operations are listed in, and which claim types may stand
 * for which column types.
 */
import type { AccessDecl, AuthDecl, ResourceDecl, TableDecl } from "../language/ir.js";
import type { ResolvedType } from "./schema-index.js";

/** The named sets an access block's `ops` may name besides `all`, and what each grants. */
export const ACCESS_OP_SETS: Readonly<Record<"reads" | "crud", readonly string[]>> = {
  reads: ["list", "read"],
  crud: ["create", "read", "update", "delete"],
};

/**
 * The roles an access block or `default_role` may name: `roles`, and the
 * anonymous role, which `anonymous = name` declares by itself (listing it in
 * `roles` too changes nothing).
 */
export function declaredRoles(auth: AuthDecl): string[] {
  return auth.anonymous !== undefined && !auth.roles.includes(auth.anonymous)
    ? [...auth.roles, auth.anonymous]
    : [...auth.roles];
}

/** The five operations, in the order granted operations are listed. */
const OP_ORDER: readonly string[] = ["list", "read", "create", "update", "delete"];

/** Every operation word of `ops` that is neither a set nor an action name. */
export const ACCESS_OP_WORDS: readonly string[] = [...OP_ORDER, "events", "reads", "crud", "all"];

/**
 * What `all` grants on `resource`: every operation it serves, `events` when
 * it has a change feed, and every declared action.
 */
export function allOps(resource: ResourceDecl | undefined): string[] {
  if (!resource) return [];
  return [...resource.ops, ...(resource.events ? ["events"] : []), ...(resource.actions ?? []).map((a) => a.name)];
}

/**
 * `names` with the named sets expanded (`reads`, `crud`, `all` on
 * `resource`), each operation once, in the order list, read, create,
 * update, delete, events, then actions as declared, then any other name as
 * written (the validator refuses those).
 */
export function expandOps(names: readonly string[], resource: ResourceDecl | undefined): string[] {
  const set = new Set<string>();
  for (const name of names) {
    if (name === "all") for (const op of allOps(resource)) set.add(op);
    else if (name === "reads" || name === "crud") for (const op of ACCESS_OP_SETS[name]) set.add(op);
    else set.add(name);
  }
  const actions = (resource?.actions ?? []).map((a) => a.name);
  const rank = (op: string): number => {
    const i = OP_ORDER.indexOf(op);
    if (i >= 0) return i;
    if (op === "events") return OP_ORDER.length;
    const a = actions.indexOf(op);
    return a >= 0 ? OP_ORDER.length + 1 + a : OP_ORDER.length + 1 + actions.length;
  };
  return [...set].sort((a, b) => rank(a) - rank(b));
}

/** The operations an access block grants on its table, named sets expanded. */
export function grantedOps(table: TableDecl, block: AccessDecl): string[] {
  return expandOps(block.ops, table.resource);
}

/**
 * The ops of a `rows(op, …)` rule expanded, or undefined when it applies to
 * every operation the block grants (no list, or a list naming `all`).
 */
export function rowRuleOps(table: TableDecl, ops: readonly string[] | undefined): string[] | undefined {
  if (ops === undefined || ops.includes("all")) return undefined;
  return expandOps(ops, table.resource);
}

/**
 * True when `table`'s access blocks stamp `column` for every role granted
 * create (and at least one is): the column is then set on every create, as
 * a hook-set `@stamped` column is (docs/decisions/1253-create-body-completeness.md).
 */
export function stampedOnEveryCreate(table: TableDecl, column: string): boolean {
  const creating = table.access.filter((b) => grantedOps(table, b).includes("create"));
  return creating.length > 0 && creating.every((b) => b.stamps.some((s) => s.column === column));
}

function elementFamily(t: ResolvedType): string {
  return t.family.replace(/(\[\])+$/, "");
}

/**
 * Whether a claim of type `claim` may stand for a value of a column of type
 * `column` (elements compared, array dimensions aside): the same type
 * family (docs/decisions/0203-reference-type-compatibility.md), or a text
 * claim for a text, enum or uuid column, whose codec decodes the text (a
 * token's `sub` is text; the column may be a uuid).
 */
export function claimFitsColumn(claim: ResolvedType, column: ResolvedType): boolean {
  const family = elementFamily(claim);
  if (family === elementFamily(column)) return true;
  const textual = family === "text" || family === "citext";
  return textual && (column.kind === "text" || column.kind === "enum" || column.kind === "uuid");
}
