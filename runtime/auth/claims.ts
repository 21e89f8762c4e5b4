/**
 * A verified token's payload as a {@link Principal}
 * (docs/decisions/1367-access-rules.md, "Authentication"): its subject, the
 * schema's roles it names (else the default role), and every claim the
 * schema declares, read at its path and decoded for its type. A token the
 * rules could not be applied to (no subject, no role, a required claim
 * missing or of another type) is refused like a bad signature.
 */
import type { AuthDescriptor, ClaimDescriptor, ValueKind } from "../descriptor.js";
import type { JsonValue } from "../predicate.js";
import { AuthConfigError, TokenRefused } from "./errors.js";
import type { Principal } from "./principal.js";

/** The claim kinds a token's claims may be declared as. */
const CLAIM_KINDS: ReadonlySet<ValueKind> = new Set<ValueKind>([
  "text",
  "uuid",
  "integer",
  "bigint",
  "numeric",
  "float",
  "boolean",
  "enum",
]);

/**
 * Checks the claim and role declarations once, when the authenticator is
 * made: every claim of a kind a token can carry, with a path; an enum claim
 * with its values; the default and anonymous roles among the roles.
 * @throws AuthConfigError naming the claim or role
 */
export function checkDeclarations(auth: AuthDescriptor): void {
  if (auth.roleClaim.length === 0) throw new AuthConfigError("auth role_claim is an empty path");
  for (const c of auth.claims) {
    if (!CLAIM_KINDS.has(c.kind))
      throw new AuthConfigError(
        `auth claim ${c.name} is of kind ${c.kind}; a claim is one of ${[...CLAIM_KINDS].join(", ")} (or an array of one)`,
      );
    if (c.path.length === 0) throw new AuthConfigError(`auth claim ${c.name} has an empty path`);
    if (c.kind === "enum" && (c.enumValues ?? []).length === 0)
      throw new AuthConfigError(`auth claim ${c.name} is an enum without values`);
  }
  for (const [setting, role] of [
    ["default_role", auth.defaultRole],
    ["anonymous", auth.anonymous],
  ] as const) {
    if (role !== undefined && !auth.roles.includes(role))
      throw new AuthConfigError(`auth ${setting} = ${role} is not one of its roles (${auth.roles.join(", ")})`);
  }
}

/** The member at `path` of `payload`, own members only; undefined when any step is missing or not an object. */
export function memberAt(payload: unknown, path: readonly string[]): unknown {
  let at: unknown = payload;
  for (const step of path) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !Object.hasOwn(at, step)) return undefined;
    at = (at as Record<string, unknown>)[step];
  }
  return at;
}

/** PostgreSQL's uuid input: 32 hex digits, hyphenated 8-4-4-4-12 (the form JWT issuers use). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER = /^-?(0|[1-9]\d*)$/;
const DECIMAL = /^-?(0|[1-9]\d*)(\.\d+)?$/;
const INT32 = [-(2n ** 31n), 2n ** 31n - 1n] as const;
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;

/** An integer given as a JSON number or its decimal text, within `range`, or undefined. */
function integerOf(v: unknown, range: readonly [bigint, bigint]): bigint | undefined {
  let n: bigint;
  if (typeof v === "number" && Number.isSafeInteger(v)) n = BigInt(v);
  else if (typeof v === "string" && INTEGER.test(v)) n = BigInt(v);
  else return undefined;
  return n >= range[0] && n <= range[1] ? n : undefined;
}

/**
 * One value of claim `c` decoded as a column of its kind would hold it, or
 * undefined when it is not one: a uuid as its lowercase text, an integer as
 * a number, a bigint or numeric as its decimal text (a JSON number or a
 * string of digits), a boolean, a text, an enum among its values.
 */
function scalarOf(c: ClaimDescriptor, v: unknown): JsonValue | undefined {
  switch (c.kind) {
    case "text":
      return typeof v === "string" ? v : undefined;
    case "uuid":
      return typeof v === "string" && UUID.test(v) ? v.toLowerCase() : undefined;
    case "integer": {
      const n = integerOf(v, INT32);
      return n === undefined ? undefined : Number(n);
    }
    case "bigint": {
      const n = integerOf(v, INT64);
      return n === undefined ? undefined : n.toString();
    }
    case "numeric":
      if (typeof v === "number" && Number.isFinite(v)) return String(v);
      return typeof v === "string" && DECIMAL.test(v) ? v : undefined;
    case "float":
      return typeof v === "number" && Number.isFinite(v) ? v : undefined;
    case "boolean":
      return typeof v === "boolean" ? v : undefined;
    case "enum":
      return typeof v === "string" && (c.enumValues ?? []).includes(v) ? v : undefined;
    default:
      return undefined;
  }
}

/** What a claim of `c`'s type is, for a refusal's message: `uuid`, `an array of integer`. */
function typeName(c: ClaimDescriptor): string {
  return c.array ? `an array of ${c.kind}` : c.kind;
}

/**
 * Claim `c` of `payload`, decoded; null when it is absent (or JSON null)
 * and nullable.
 * @throws TokenRefused (`claims`) when it is required and absent, or not of its type
 */
function claimOf(c: ClaimDescriptor, payload: Record<string, unknown>): JsonValue {
  const raw = memberAt(payload, c.path);
  const at = c.path.join(".");
  if (raw === undefined || raw === null) {
    if (c.nullable) return null;
    throw new TokenRefused("claims", `the token lacks the claim ${c.name} (${at})`);
  }
  const mistyped = (): TokenRefused => new TokenRefused("claims", `the claim ${c.name} (${at}) is not ${typeName(c)}`);
  if (!c.array) {
    const v = scalarOf(c, raw);
    if (v === undefined) throw mistyped();
    return v;
  }
  if (!Array.isArray(raw)) throw mistyped();
  const items: JsonValue[] = [];
  for (const item of raw as unknown[]) {
    const v = scalarOf(c, item);
    if (v === undefined) throw mistyped();
    items.push(v);
  }
  return items;
}

/**
 * The schema's roles a payload names at `auth.roleClaim` (a string or an
 * array of strings), in the token's order without repeats; roles the
 * schema does not declare are dropped. None: the default role.
 * @throws TokenRefused (`role`) when the claim is of another type, or no role is left and there is no default
 */
function rolesOf(auth: AuthDescriptor, payload: Record<string, unknown>): string[] {
  const raw = memberAt(payload, auth.roleClaim);
  const at = auth.roleClaim.join(".");
  let named: string[];
  if (raw === undefined || raw === null) named = [];
  else if (typeof raw === "string") named = [raw];
  else if (Array.isArray(raw) && raw.every((r) => typeof r === "string")) named = raw as string[];
  else throw new TokenRefused("role", `the role claim ${at} is neither a string nor an array of strings`);
  const roles = [...new Set(named.filter((r) => auth.roles.includes(r)))];
  if (roles.length > 0) return roles;
  if (auth.defaultRole !== undefined) return [auth.defaultRole];
  throw new TokenRefused(
    "role",
    named.length === 0
      ? `the token names no role at ${at} and the schema declares no default_role`
      : `the token names no role of the schema at ${at} and the schema declares no default_role`,
  );
}

/**
 * The principal of a verified token's payload: `subject` its `sub`, the
 * roles it names (see {@link rolesOf}), every declared claim decoded, `sub`
 * among them, `expiresAt` its `exp` when it is a number. Roles and claims are frozen.
 * @throws TokenRefused (`subject`, `role`, `claims`) when the rules could not be applied to the token
 */
export function principalFromPayload(auth: AuthDescriptor, payload: Record<string, unknown>): Principal {
  const sub = payload.sub;
  if (typeof sub !== "string" || sub === "")
    throw new TokenRefused("subject", "the token has no sub claim, or one that is not a non-empty string");
  const roles = rolesOf(auth, payload);
  const claims: Record<string, JsonValue> = { sub };
  for (const c of auth.claims) if (c.name !== "sub") claims[c.name] = claimOf(c, payload);
  const exp = payload.exp;
  return {
    subject: sub,
    roles: Object.freeze(roles),
    claims: Object.freeze(claims),
    ...(typeof exp === "number" && Number.isFinite(exp) ? { expiresAt: exp } : {}),
  };
}

/**
 * The principal of a request without a token that the anonymous role
 * admits: no subject, the anonymous role, every claim null (`sub` too).
 * @throws AuthConfigError when `auth` declares no anonymous role
 */
export function anonymousPrincipal(auth: AuthDescriptor): Principal {
  if (auth.anonymous === undefined) throw new AuthConfigError("auth declares no anonymous role");
  const claims: Record<string, JsonValue> = { sub: null };
  for (const c of auth.claims) claims[c.name] = null;
  return { subject: "", roles: Object.freeze([auth.anonymous]), claims: Object.freeze(claims), anonymous: true };
}
