/**
 * The `auth` block (docs/decisions/1367-access-rules.md): roles the rules
 * may name, claims with types a token can carry, and a `jwt` block that
 * verifies tokens one way only. The verification is fixed by the schema,
 * never by the token, so everything that would leave it open or ambiguous
 * (no key, two keys, a key of the wrong kind for the algorithms, HS and
 * asymmetric algorithms together) is refused here rather than found at the
 * first request.
 */
import type { AuthDecl, ClaimDecl, DatabaseDecl, JwtDecl, Span } from "../../language/ir.js";
import { databaseSettingProblems } from "../../runtime/auth/database-settings.js";
import { declaredRoles } from "../access.js";
import { databaseRoleDescriptor } from "../descriptor.js";
import { typeText, withHint, type ValidationContext } from "./context.js";

/** The name of an environment variable, as a shell exports it. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Claim value kinds a JSON payload cannot carry as a bind parameter resc decodes. */
const NOT_CLAIMS = new Set(["jsonb", "bytea", "other"]);

function checkPath(ctx: ValidationContext, path: string, what: string, span: Span): void {
  if (path.split(".").some((member) => member === "")) {
    ctx.error(
      "invalid-claim-path",
      `${what} "${path}" is not a dotted path into the token's payload: write its members separated by single dots, like "app_metadata.org"`,
      span,
    );
  }
}

function checkClaim(ctx: ValidationContext, claim: ClaimDecl): void {
  const type = ctx.index.resolve(claim.type);
  if (claim.name === "sub") {
    if (type.arrayDims > 0 || type.kind !== "text" || claim.nullable) {
      ctx.error(
        "sub-claim-type",
        `claim "sub" is always the token's subject, a required text: declare it "claim sub text" (a @path may move it) or leave it out`,
        claim.type.span,
      );
    }
  } else if (NOT_CLAIMS.has(type.kind) || type.arrayDims > 1) {
    const why =
      type.arrayDims > 1
        ? "a claim is a value or a list of values, never a list of lists"
        : type.base.kind === "unknown"
          ? `"${type.base.name}" is not a type resc decodes`
          : "a claim is bound as a value a rule compares a column with, and documents and bytes are not";
    ctx.error(
      "invalid-claim-type",
      `claim "${claim.name}" cannot be of type "${typeText(claim.type)}": ${why}; use text, a number, boolean, uuid, a date or time, an enum, or a list of one of them`,
      claim.type.span,
    );
  }
  if (claim.path !== undefined) checkPath(ctx, claim.path, `the @path`, claim.pathSpan ?? claim.span);
}

function setting(jwt: JwtDecl, key: string): Span {
  return jwt.settingSpans[key] ?? jwt.span;
}

function checkJwt(ctx: ValidationContext, jwt: JwtDecl): void {
  if (jwt.algorithms.length === 0) {
    ctx.error(
      "jwt-missing-algorithms",
      `the jwt block accepts no algorithm: list them, as algorithms = [HS256] or [RS256]; a token never chooses its own`,
      setting(jwt, "algorithms"),
    );
  }
  const hs = jwt.algorithms.filter((a) => a.startsWith("HS"));
  const asymmetric = jwt.algorithms.filter((a) => !a.startsWith("HS"));
  if (hs.length > 0 && asymmetric.length > 0) {
    ctx.error(
      "jwt-mixed-algorithms",
      `"algorithms" mixes shared-secret ${hs.join(", ")} with public-key ${asymmetric.join(", ")}: one key verifies every token, so keep one kind (a token signed with the public key as an HMAC secret must never pass)`,
      setting(jwt, "algorithms"),
    );
  }
  const sources = (["secret_env", "jwks_url", "public_key_env"] as const).filter((k) => jwt.settingSpans[k]);
  if (sources.length === 0) {
    ctx.error(
      "jwt-missing-key-source",
      `the jwt block names no key to verify tokens with: set secret_env (HS*), jwks_url or public_key_env (RS*, PS*, ES*, EdDSA)`,
      jwt.span,
    );
  }
  for (const extra of sources.slice(1)) {
    ctx.error(
      "jwt-conflicting-key-sources",
      `the jwt block already takes its key from "${sources[0]}": one key source only ("${extra}" would be a second)`,
      setting(jwt, extra),
    );
  }
  if (hs.length > 0 && asymmetric.length === 0) {
    for (const key of ["jwks_url", "public_key_env"] as const) {
      if (jwt.settingSpans[key]) {
        ctx.error(
          "jwt-key-algorithm-mismatch",
          `"${key}" holds public keys, but ${hs.join(", ")} ${hs.length > 1 ? "are" : "is"} verified with a shared secret: use secret_env, or list RS256, ES256, EdDSA …`,
          setting(jwt, key),
        );
      }
    }
  }
  if (asymmetric.length > 0 && hs.length === 0 && jwt.settingSpans["secret_env"]) {
    ctx.error(
      "jwt-key-algorithm-mismatch",
      `"secret_env" holds a shared secret, but ${asymmetric.join(", ")} ${asymmetric.length > 1 ? "are" : "is"} verified with a public key: use jwks_url or public_key_env, or list HS256`,
      setting(jwt, "secret_env"),
    );
  }
  for (const key of ["secret_env", "public_key_env"] as const) {
    const name = key === "secret_env" ? jwt.secretEnv : jwt.publicKeyEnv;
    if (name !== undefined && !ENV_NAME.test(name)) {
      ctx.error(
        "invalid-env-name",
        `"${key}" names the environment variable that holds the key, never the key itself: "${name.length > 24 ? `${name.slice(0, 24)}…` : name}" is not a variable name`,
        setting(jwt, key),
      );
    }
  }
  if (jwt.jwksUrl !== undefined) {
    let protocol: string | undefined;
    try {
      protocol = new URL(jwt.jwksUrl).protocol;
    } catch {
      protocol = undefined;
    }
    if (protocol !== "https:" && protocol !== "http:") {
      ctx.error(
        "invalid-jwks-url",
        `"jwks_url" = "${jwt.jwksUrl}" is not an absolute http(s) URL of a JSON Web Key Set`,
        setting(jwt, "jwks_url"),
      );
    }
  }
  if (jwt.clockTolerance !== undefined && jwt.clockTolerance < 0) {
    ctx.error(
      "negative-clock-tolerance",
      `"clock_tolerance" is the clock skew allowed for exp and nbf, in seconds: ${jwt.clockTolerance} cannot be one (0 allows none; the default is 30)`,
      setting(jwt, "clock_tolerance"),
    );
  }
}

/** The diagnostic code of each kind of {@link databaseSettingProblems}. */
const DATABASE_CODES = {
  "role-name": "invalid-database-role",
  "anonymous-missing": "database-anonymous-role-missing",
  "claims-setting": "invalid-claims-setting",
} as const;

/**
 * The `database { … }` block (docs/decisions/1368-database-row-level-security.md): what mounting would refuse
 * (runtime/auth/database-settings.ts states it once), reported here with the setting's code frame; a
 * problem of one of the schema's roles under `role = principal` points at that role where it is declared.
 */
function checkDatabase(ctx: ValidationContext, auth: AuthDecl, database: DatabaseDecl): void {
  // Without a `role` (reported as `missing-setting` by the IR builder) there is nothing to check.
  const descriptor = databaseRoleDescriptor(database);
  if (descriptor === undefined) return;
  const at = (key: string): Span => database.settingSpans[key] ?? database.span;
  for (const p of databaseSettingProblems(declaredRoles(auth), auth.anonymous, descriptor)) {
    let span = at(p.setting);
    if (p.role !== undefined) {
      const i = auth.roles.indexOf(p.role);
      span = i >= 0 ? auth.roleSpans[i]! : p.role === auth.anonymous ? (auth.settingSpans["anonymous"] ?? span) : span;
    }
    ctx.error(DATABASE_CODES[p.kind], `the database block's ${p.message}`, span);
  }
  if (descriptor.anonymousRole !== undefined && auth.anonymous === undefined)
    ctx.warning(
      "database-anonymous-unused",
      `the database block's anonymous role "${descriptor.anonymousRole}" is never taken: the auth block admits no request without a token (set anonymous = name to admit them)`,
      at("anonymous"),
    );
}

/**
 * Reports, for the `auth` block: `unknown-role` (`default_role`),
 * `duplicate-claim`, `sub-claim-type`, `invalid-claim-type`,
 * `invalid-claim-path` (also `role_claim`), and for its `jwt` block
 * `jwt-missing-algorithms`, `jwt-mixed-algorithms`,
 * `jwt-missing-key-source`, `jwt-conflicting-key-sources`,
 * `jwt-key-algorithm-mismatch`, `invalid-env-name`, `invalid-jwks-url` and
 * `negative-clock-tolerance`, and for its `database` block
 * `invalid-database-role`,
 * `database-anonymous-role-missing`, `invalid-claims-setting` and the
 * warning `database-anonymous-unused`. The anonymous role is declared by
 * `anonymous = name` itself; listing it in `roles` too is allowed.
 */
export function checkAuth(ctx: ValidationContext): void {
  const auth = ctx.index.schema.auth;
  if (!auth) return;
  const roles = declaredRoles(auth);
  if (auth.defaultRole !== undefined && !roles.includes(auth.defaultRole)) {
    ctx.error(
      "unknown-role",
      withHint(
        `"default_role" names "${auth.defaultRole}", which roles does not declare (declared: ${roles.join(", ") || "none"})`,
        auth.defaultRole,
        roles,
      ),
      auth.settingSpans["default_role"] ?? auth.span,
    );
  }
  if (auth.roleClaim !== undefined)
    checkPath(ctx, auth.roleClaim, `"role_claim" =`, auth.settingSpans["role_claim"] ?? auth.span);
  const seen = new Map<string, ClaimDecl>();
  for (const claim of auth.claims) {
    const first = seen.get(claim.name);
    if (first) {
      ctx.error(
        "duplicate-claim",
        `claim "${claim.name}" is already declared at line ${first.span.line}`,
        claim.nameSpan,
      );
      continue;
    }
    seen.set(claim.name, claim);
    checkClaim(ctx, claim);
  }
  if (auth.jwt) checkJwt(ctx, auth.jwt);
  if (auth.database) checkDatabase(ctx, auth, auth.database);
}
