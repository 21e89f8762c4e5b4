/**
 * Schemas with an `auth` block and `access` blocks built by hand
 * (docs/decisions/1367-access-rules.md): a fixture is parsed and validated
 * as it is, then the IR the access grammar produces is added to it, so a
 * test states exactly the blocks it needs without writing their text.
 */
import { compileSource } from "../../compiler/index.js";
import { formatDiagnostics } from "../../grammar/index.js";
import type { AccessDecl, AuthDecl, RuleExprDecl, Schema, Span } from "../../language/ir.js";

/** The span every hand-built declaration points at. */
export const NOWHERE: Span = {
  file: "governed.resource",
  line: 1,
  column: 1,
  endLine: 1,
  endColumn: 1,
  offset: 0,
  length: 0,
};

/** A valid schema's IR; throws with the diagnostics when it is not valid. */
export function compiled(text: string, file = "governed.resource"): Schema {
  const r = compileSource(text, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, text));
  return r.schema;
}

/** `auth { … }` with the settings given; `jwt` defaults to HS256 with `secret_env`, `null` leaves it out. */
export function authBlock(
  settings: { roles: string[]; anonymous?: string; defaultRole?: string; jwt?: null; issuer?: string } = {
    roles: ["member", "admin"],
  },
): AuthDecl {
  const auth: AuthDecl = {
    roles: settings.roles,
    roleSpans: settings.roles.map(() => NOWHERE),
    claims: [
      {
        name: "org",
        type: { name: "uuid", args: [], arrayDims: 0, span: NOWHERE },
        nullable: false,
        nameSpan: NOWHERE,
        span: NOWHERE,
      },
    ],
    settingSpans: {},
    span: NOWHERE,
  };
  if (settings.jwt !== null) {
    const jwt: NonNullable<AuthDecl["jwt"]> = {
      algorithms: ["HS256"],
      secretEnv: "GOVERNED_JWT_SECRET",
      settingSpans: {},
      span: NOWHERE,
    };
    if (settings.issuer !== undefined) jwt.issuer = settings.issuer;
    auth.jwt = jwt;
  }
  if (settings.anonymous !== undefined) auth.anonymous = settings.anonymous;
  if (settings.defaultRole !== undefined) auth.defaultRole = settings.defaultRole;
  return auth;
}

/** `column = claim.<claim>`. */
export function claimRule(column: string, claim: string): RuleExprDecl {
  return {
    kind: "cmp",
    left: { kind: "column", column, span: NOWHERE },
    op: "eq",
    right: { kind: "claim", claim, span: NOWHERE },
    opSpan: NOWHERE,
    span: NOWHERE,
  };
}

/** One `access` block: roles, ops as written, and optionally rows, stamps and hidden columns. */
export function accessBlock(
  roles: string[],
  ops: string[],
  more: { rows?: { ops?: string[]; expr: RuleExprDecl }[]; hide?: string[]; stamps?: [string, string][] } = {},
): AccessDecl {
  return {
    roles,
    roleSpans: roles.map(() => NOWHERE),
    ops,
    opSpans: ops.map(() => NOWHERE),
    rows: (more.rows ?? []).map((r) => ({ ...r, span: NOWHERE })),
    stamps: (more.stamps ?? []).map(([column, claim]) => ({
      column,
      claim,
      columnSpan: NOWHERE,
      claimSpan: NOWHERE,
      span: NOWHERE,
    })),
    hide: more.hide ?? [],
    hideSpans: (more.hide ?? []).map(() => NOWHERE),
    settingSpans: {},
    span: NOWHERE,
  };
}

/** `schema` with `auth` and, per table name, its `access` blocks (a copy: the input is left as it was). */
export function governed(schema: Schema, auth: AuthDecl, access: Record<string, AccessDecl[]>): Schema {
  return {
    ...schema,
    auth,
    tables: schema.tables.map((t) => ({ ...t, access: access[t.name] ?? t.access })),
  };
}
