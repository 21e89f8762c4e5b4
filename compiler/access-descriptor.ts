/**
 * IR → runtime descriptors of authentication and access rules
 * (docs/decisions/1367-access-rules.md): the `auth` block as an
 * {@link AuthDescriptor} and a table's `access` blocks as
 * {@link AccessDescriptor}s, named operation sets expanded
 * (compiler/access-ops.ts), rule expressions in the runtime's {@link Rule}
 * form and claims typed as a column of their type would be.
 *
 * Like the rest of the descriptor builder it assumes a validated schema:
 * names resolve and every rule fits its column.
 */
import type {
  AccessDescriptor,
  AuthDescriptor,
  ClaimDescriptor,
  JwtDescriptor,
  Rule,
  RuleValue,
} from "../runtime/descriptor.js";
import type { AccessDecl, AuthDecl, ClaimDecl, RuleExprDecl, RuleOperandDecl, TableDecl } from "../language/ir.js";
import { expandAccessOps } from "./access-ops.js";
import type { SchemaIndex } from "./schema-index.js";

/** `clock_tolerance` when the `jwt` block leaves it out, in seconds (docs/decisions/1367-access-rules.md). */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** A dotted path (`app_metadata.org`) member by member. */
function dotted(path: string): string[] {
  return path.split(".").filter((p) => p !== "");
}

function claimDescriptor(index: SchemaIndex, claim: ClaimDecl): ClaimDescriptor {
  const type = index.resolve(claim.type);
  const d: ClaimDescriptor = {
    name: claim.name,
    path: claim.path !== undefined ? dotted(claim.path) : [claim.name],
    kind: type.kind,
    array: type.arrayDims > 0,
    sqlType: type.castType,
    nullable: claim.nullable,
  };
  if (type.base.kind === "enum") d.enumValues = [...type.base.decl.values];
  return d;
}

/**
 * The `auth` block as the runtime reads it (docs/decisions/1367-access-rules.md):
 * `clock_tolerance` defaulted, `role_claim` split at its dots (default
 * `role`), the anonymous and default roles among the roles.
 */
export function authDescriptor(index: SchemaIndex, auth: AuthDecl): AuthDescriptor {
  const roles = [...auth.roles];
  for (const r of [auth.defaultRole, auth.anonymous]) if (r !== undefined && !roles.includes(r)) roles.push(r);
  const d: AuthDescriptor = {
    roles,
    roleClaim: dotted(auth.roleClaim ?? "role"),
    claims: auth.claims.map((c) => claimDescriptor(index, c)),
  };
  if (auth.jwt) {
    const j = auth.jwt;
    const jwt: JwtDescriptor = {
      algorithms: [...j.algorithms],
      clockToleranceSeconds: j.clockTolerance ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    };
    if (j.secretEnv !== undefined) jwt.secretEnv = j.secretEnv;
    if (j.jwksUrl !== undefined) jwt.jwksUrl = j.jwksUrl;
    if (j.publicKeyEnv !== undefined) jwt.publicKeyEnv = j.publicKeyEnv;
    if (j.issuer !== undefined) jwt.issuer = j.issuer;
    if (j.audience !== undefined) jwt.audience = j.audience;
    d.jwt = jwt;
  }
  if (auth.defaultRole !== undefined) d.defaultRole = auth.defaultRole;
  if (auth.anonymous !== undefined) d.anonymous = auth.anonymous;
  return d;
}

type Literal = string | number | boolean;

/** The right side of a comparison as the runtime binds it. */
function ruleValue(operand: RuleOperandDecl): RuleValue {
  switch (operand.kind) {
    case "claim":
      return { claim: operand.claim };
    case "literal":
      return { literal: operand.value };
    case "list":
      return {
        literal: operand.items.flatMap((i): Literal[] => (i.kind === "literal" && i.value !== null ? [i.value] : [])),
      };
    case "column":
      // The grammar refuses a column on the right; a validated schema has none.
      throw new Error(`a rule compares column ${operand.column} with another column; validate the schema first`);
  }
}

/** A rule expression in the runtime's form. */
export function ruleOf(expr: RuleExprDecl): Rule {
  switch (expr.kind) {
    case "and":
    case "or":
      return { kind: expr.kind, children: expr.children.map(ruleOf) };
    case "not":
      return { kind: "not", child: ruleOf(expr.child) };
    case "cmp": {
      const r: Extract<Rule, { kind: "cmp" }> = { kind: "cmp", column: expr.left.column, op: expr.op };
      if (expr.left.relation !== undefined) r.relation = expr.left.relation;
      if (expr.right !== undefined) r.value = ruleValue(expr.right);
      return r;
    }
  }
}

function accessDescriptor(block: AccessDecl, actions: readonly string[]): AccessDescriptor {
  const d: AccessDescriptor = {
    roles: [...block.roles],
    ops: expandAccessOps(block.ops, actions),
    rows: block.rows.map((r) =>
      r.ops !== undefined ? { ops: expandAccessOps(r.ops, actions), rule: ruleOf(r.expr) } : { rule: ruleOf(r.expr) },
    ),
    stamps: block.stamps.map((s) => ({ column: s.column, claim: s.claim })),
    hide: [...block.hide],
  };
  if (block.check) d.check = ruleOf(block.check);
  return d;
}

/**
 * A table's `access` blocks as the runtime reads them, in source order
 * (docs/decisions/1367-access-rules.md); undefined when it declares none.
 */
export function accessDescriptors(table: TableDecl): AccessDescriptor[] | undefined {
  // Hand-built IR from before access blocks may lack the member.
  const blocks: readonly AccessDecl[] = table.access ?? [];
  if (blocks.length === 0) return undefined;
  const actions = (table.resource?.actions ?? []).map((a) => a.name);
  return blocks.map((b) => accessDescriptor(b, actions));
}
