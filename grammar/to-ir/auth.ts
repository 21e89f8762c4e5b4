/**
 * The `auth { … }` block (docs/language.md, Authentication and access;
 * docs/decisions/1367-access-rules.md): its settings, its `claim` lines and
 * its `jwt { … }` and `database { … }` blocks. What one setting alone shows is reported here
 * (unknown or repeated settings, values of the wrong shape, an algorithm
 * that does not exist, a repeated role); what needs the whole schema (a role
 * an access block names, a key source that does not fit the algorithms) is
 * the validator's (compiler/validate/auth.ts).
 */
import type { CstNode, IToken } from "chevrotain";
import type { AuthDecl, ClaimDecl, DatabaseDecl, JwtAlgorithm, JwtDecl, Span } from "../../language/ir.js";
// The one statement of the algorithms, an import-free vocabulary of the runtime (as runtime/operators.ts is).
import { JWT_ALGORITHMS } from "../../runtime/auth/algorithms.js";
import { didYouMean } from "../../language/suggest.js";
import { readAttribute, requirePositional, splitArgs } from "./args.js";
import { nameToken, node, nodes, token } from "./cst.js";
import type { Ctx } from "./context.js";
import { expectInteger, expectName, expectNameList, expectString, type Where } from "./expect.js";
import { readType, type ReadType } from "./types.js";
import { describe, readValue, type Val } from "./values.js";

/** The settings of the `auth` block, in the order the reference lists them. */
export const AUTH_SETTINGS: readonly string[] = ["roles", "role_claim", "default_role", "anonymous"];

/** The settings of the `jwt` block inside `auth`. */
export const JWT_SETTINGS: readonly string[] = [
  "algorithms",
  "secret_env",
  "jwks_url",
  "public_key_env",
  "issuer",
  "audience",
  "clock_tolerance",
];

export { JWT_ALGORITHMS };

/**
 * The settings of the `database` block inside `auth` (docs/decisions/1368-database-row-level-security.md):
 * which database role a request acts as, that of a request without a token, and where its claims go.
 */
export const DATABASE_SETTINGS: readonly string[] = ["role", "anonymous", "claims"];

/** The attributes a `claim` line takes. */
export const CLAIM_ATTRIBUTES: readonly string[] = ["path"];

function w(key: string): Where {
  return { what: `"${key}"`, code: "invalid-value" };
}

/**
 * Calls `apply(key, value)` for each `setting` node whose key is one of
 * `known`, once per key: an unknown key is `unknown-setting` (with a
 * suggestion) unless `unknown` says it reported it itself, a repeated one
 * `duplicate-setting`. `spans` receives the span of each value by key. The
 * `auth`, `jwt` and `access` blocks share it (docs/decisions/1367-access-rules.md).
 */
export function eachSetting(
  settings: readonly CstNode[],
  known: readonly string[],
  block: string,
  spans: Record<string, Span>,
  ctx: Ctx,
  apply: (key: string, value: Val) => void,
  unknown?: (key: IToken) => boolean,
): void {
  for (const s of settings) {
    const key = token(s, "key");
    if (!key) continue;
    const value = readValue(node(s, "value"), ctx);
    // A key whose "=" error recovery supplied is a stray word, already a syntax error.
    if (!token(s, "Equals")) continue;
    if (!known.includes(key.image)) {
      if (unknown?.(key)) continue;
      const hint = didYouMean(key.image, known);
      ctx.error(
        "unknown-setting",
        hint
          ? `Unknown setting "${key.image}" in ${block}.${hint}`
          : `Unknown setting "${key.image}" in ${block}: expected one of ${known.join(", ")}`,
        ctx.tok(key),
      );
      continue;
    }
    const first = spans[key.image];
    if (first) {
      ctx.error("duplicate-setting", `Setting "${key.image}" is already given at line ${first.line}`, ctx.tok(key));
      continue;
    }
    spans[key.image] = value.span;
    apply(key.image, value);
  }
}

/** Reads `algorithms = [HS256, …]`: `unknown-algorithm` for a name that is none of {@link JWT_ALGORITHMS}. */
function readAlgorithms(v: Val, ctx: Ctx): JwtAlgorithm[] {
  const out: JwtAlgorithm[] = [];
  for (const item of expectNameList(v, w("algorithms"), ctx) ?? []) {
    const known = JWT_ALGORITHMS.find((a) => a === item.name);
    if (known) {
      if (!out.includes(known)) out.push(known);
      continue;
    }
    if (item.name.toLowerCase() === "none") {
      ctx.error(
        "unknown-algorithm",
        `Algorithm "none" is never accepted: a token must be signed (use HS256 with secret_env, or RS256, ES256, EdDSA … with jwks_url or public_key_env)`,
        item.span,
      );
      continue;
    }
    const hint = didYouMean(item.name, JWT_ALGORITHMS);
    ctx.error(
      "unknown-algorithm",
      hint
        ? `Unknown JWS algorithm "${item.name}".${hint}`
        : `Unknown JWS algorithm "${item.name}": expected one of ${JWT_ALGORITHMS.join(", ")}`,
      item.span,
    );
  }
  return out;
}

/** Builds the `jwt { … }` block. */
function readJwt(n: CstNode, ctx: Ctx): JwtDecl {
  const jwt: JwtDecl = { algorithms: [], settingSpans: {}, span: ctx.nodeSpan(n) };
  const settings = nodes(node(n, "settingsBlock"), "setting");
  eachSetting(settings, JWT_SETTINGS, "the jwt block", jwt.settingSpans, ctx, (key, v) => {
    switch (key) {
      case "algorithms":
        jwt.algorithms = readAlgorithms(v, ctx);
        break;
      case "clock_tolerance": {
        const seconds = expectInteger(v, w(key), ctx);
        if (seconds !== undefined) jwt.clockTolerance = seconds;
        break;
      }
      default: {
        const text = expectString(v, w(key), ctx);
        if (text === undefined) break;
        if (key === "secret_env") jwt.secretEnv = text;
        else if (key === "jwks_url") jwt.jwksUrl = text;
        else if (key === "public_key_env") jwt.publicKeyEnv = text;
        else if (key === "issuer") jwt.issuer = text;
        else jwt.audience = text;
      }
    }
  });
  return jwt;
}

/**
 * Reads `role = principal` or `role = "name"`: any other bare name is `invalid-value`, suggesting the quotes
 * (a database role is the database's name, not one of the schema's roles).
 */
function readDatabaseRole(v: Val, ctx: Ctx): DatabaseDecl["role"] {
  if (v.kind === "name" && !v.negated && v.name === "principal") return "principal";
  if (v.kind === "string") return { fixed: v.value };
  if (v.kind === "missing") return undefined;
  ctx.error(
    "invalid-value",
    v.kind === "name" && !v.negated
      ? `Expected principal or a database role's name in quotes for "role", found ${describe(v)}: write role = principal (each caller acts as the database role named like its role) or role = "${v.name}" (that database role for every token)`
      : `Expected principal or a database role's name in quotes (like "authenticated") for "role", found ${describe(v)}`,
    v.span,
  );
  return undefined;
}

/**
 * Builds the `database { … }` block (docs/decisions/1368-database-row-level-security.md); `missing-setting`
 * when it gives no `role` (neither form is the obvious default: PostgREST names its role, Supabase fixes one).
 */
function readDatabase(n: CstNode, ctx: Ctx): DatabaseDecl {
  const database: DatabaseDecl = { settingSpans: {}, span: ctx.nodeSpan(n) };
  const settings = nodes(node(n, "settingsBlock"), "setting");
  eachSetting(settings, DATABASE_SETTINGS, "the database block", database.settingSpans, ctx, (key, v) => {
    if (key === "role") {
      const role = readDatabaseRole(v, ctx);
      if (role !== undefined) database.role = role;
      return;
    }
    const text = expectString(v, w(key), ctx);
    if (text === undefined) return;
    if (key === "anonymous") database.anonymousRole = text;
    else database.claimsSetting = text;
  });
  // A `role` with a malformed value was reported already; only its absence is new.
  if (settings.every((s) => token(s, "key")?.image !== "role"))
    ctx.error(
      "missing-setting",
      `The database block needs a role: role = principal (each caller acts as the database role named like its role) or role = "authenticated" (that database role for every token)`,
      ctx.tok(token(n, "Database")!),
    );
  return database;
}

/** Builds one `claim name type[?] @path("a.b")` line; its type is added to `types` for the file-wide check. */
function readClaim(n: CstNode, ctx: Ctx, types: ReadType[]): ClaimDecl | undefined {
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const type = readType(node(n, "typeRef"), ctx);
  types.push(type);
  const claim: ClaimDecl = {
    name: name.image,
    type: type.type,
    nullable: type.nullable,
    span: ctx.nodeSpan(n, token(n, "Claim")),
    nameSpan: ctx.tok(name),
  };
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, ctx);
    if (!use) continue;
    if (use.name !== "path" || use.written !== "@path") {
      const hint = didYouMean(use.name, CLAIM_ATTRIBUTES, "@");
      ctx.error(
        "unknown-attribute",
        `Unknown claim attribute "${use.written}": a claim takes only @path("member.member")${hint}`,
        use.nameSpan,
      );
      continue;
    }
    if (claim.path !== undefined) {
      ctx.error("duplicate-attribute", `Duplicate attribute "@path" on claim "${claim.name}"`, use.nameSpan);
      continue;
    }
    const usage = `@path("app_metadata.${claim.name}")`;
    const split = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, split, 1, usage, ctx)) continue;
    const arg = split.positional[0]!;
    const path = expectString(arg.value, { what: "@path", code: "invalid-argument" }, ctx);
    if (path === undefined) continue;
    claim.path = path;
    claim.pathSpan = arg.value.span;
  }
  return claim;
}

/**
 * Builds the `auth` block from an `authDecl` node: settings, claims (their
 * types are added to `types` for the file-wide type check), the `jwt`
 * and `database` blocks. Reports `unknown-setting`, `duplicate-setting`, `invalid-value`, `missing-setting`
 * (a `database` block without `role`),
 * `duplicate-role`, `duplicate-block` (a second `jwt` or `database`), `unknown-algorithm`
 * and, on claims, `unknown-attribute` and `duplicate-attribute`.
 */
export function readAuth(n: CstNode, ctx: Ctx, types: ReadType[]): AuthDecl {
  const auth: AuthDecl = { roles: [], roleSpans: [], claims: [], settingSpans: {}, span: ctx.nodeSpan(n) };
  eachSetting(nodes(n, "setting"), AUTH_SETTINGS, "the auth block", auth.settingSpans, ctx, (key, v) => {
    switch (key) {
      case "roles":
        for (const item of expectNameList(v, w(key), ctx) ?? []) {
          const first = auth.roles.indexOf(item.name);
          if (first >= 0) {
            ctx.error("duplicate-role", `Role "${item.name}" is already listed in roles`, item.span);
            continue;
          }
          auth.roles.push(item.name);
          auth.roleSpans.push(item.span);
        }
        break;
      case "role_claim": {
        const path = expectString(v, w(key), ctx);
        if (path !== undefined) auth.roleClaim = path;
        break;
      }
      default: {
        const role = expectName(v, w(key), ctx);
        if (role === undefined) break;
        if (key === "default_role") auth.defaultRole = role;
        else auth.anonymous = role;
      }
    }
  });
  for (const c of nodes(n, "claimDecl")) {
    const claim = readClaim(c, ctx, types);
    if (claim) auth.claims.push(claim);
  }
  for (const j of nodes(n, "jwtBlock")) {
    const jwt = readJwt(j, ctx);
    if (auth.jwt) {
      ctx.error(
        "duplicate-block",
        `The jwt block is already declared at line ${auth.jwt.span.line}`,
        ctx.tok(token(j, "Jwt")!),
      );
      continue;
    }
    auth.jwt = jwt;
  }
  for (const d of nodes(n, "databaseBlock")) {
    const database = readDatabase(d, ctx);
    if (auth.database) {
      ctx.error(
        "duplicate-block",
        `The database block is already declared at line ${auth.database.span.line}`,
        ctx.tok(token(d, "Database")!),
      );
      continue;
    }
    auth.database = database;
  }
  return auth;
}
