/**
 * The database-role mode of an `auth` block
 * (docs/decisions/1368-database-row-level-security.md): which database role
 * a principal's statements run as, and the claims document PostgreSQL's
 * policies read. Role names are the schema's (a declared role, or one the
 * `database` settings name), checked when the service mounts; the token
 * only ever picks among them.
 */
import type { AuthDescriptor, DatabaseRoleDescriptor } from "../descriptor.js";
import type { DatabaseIdentity } from "../exec/identity.js";
import type { JsonValue } from "../predicate.js";
import { problem } from "../problem.js";
import { AuthConfigError } from "./errors.js";
import type { Principal } from "./principal.js";

/** PostgreSQL's longest identifier, in bytes (NAMEDATALEN - 1); a longer role name is never found. */
const MAX_ROLE_BYTES = 63;

/** A custom setting's name as `set_config` accepts it: two or more identifiers joined by dots. */
const CUSTOM_SETTING = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)+$/;

/** Why `name` cannot be a database role the service acts as, or undefined when it can. */
function roleProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (Buffer.byteLength(name, "utf8") > MAX_ROLE_BYTES) return `is longer than ${MAX_ROLE_BYTES} bytes`;
  // `none` resets the role to the login role's; `public` is no role; `pg_*` are PostgreSQL's predefined roles.
  if (name.toLowerCase() === "none") return "is none, which would leave the login role in place";
  if (name.toLowerCase() === "public") return "is public, which is no role";
  if (name.toLowerCase().startsWith("pg_")) return "is one of PostgreSQL's predefined roles (pg_*)";
  if (name.includes("\0")) return "holds a NUL character";
  return undefined;
}

/**
 * Checks the `database` settings of `auth` once, when the service mounts:
 * every role the requests may act as is a name PostgreSQL can have (at most
 * 63 bytes, not `none`, `public` or `pg_*`), the claims setting is a dotted
 * custom setting name, and a fixed role comes with an anonymous role when
 * the schema admits anonymous requests.
 * @throws AuthConfigError naming the setting
 */
export function checkDatabaseRoles(auth: AuthDescriptor): void {
  const d = auth.database;
  if (d === undefined) return;
  const refuse = (setting: string, name: string, why: string): never => {
    throw new AuthConfigError(`auth database ${setting} ${JSON.stringify(name)} ${why}`);
  };
  if (d.role === "principal") {
    for (const r of auth.roles) {
      const why = roleProblem(r);
      if (why !== undefined) refuse("role = principal: the role", r, why);
    }
  } else {
    const why = roleProblem(d.role.fixed);
    if (why !== undefined) refuse("role", d.role.fixed, why);
    if (auth.anonymous !== undefined && d.anonymousRole === undefined)
      throw new AuthConfigError(
        `auth database role = ${JSON.stringify(d.role.fixed)} is one role for every token, and the schema admits ` +
          `anonymous requests (anonymous = ${auth.anonymous}): name their database role (database anonymous = "…")`,
      );
  }
  if (d.anonymousRole !== undefined) {
    const why = roleProblem(d.anonymousRole);
    if (why !== undefined) refuse("anonymous", d.anonymousRole, why);
  }
  if (!CUSTOM_SETTING.test(d.claimsSetting))
    refuse("claims", d.claimsSetting, "is not a custom setting name (two or more identifiers joined by dots)");
}

/** Sets `value` at `path` of `doc`, making the objects on the way; a path through a non-object is left alone. */
function place(doc: Record<string, unknown>, path: readonly string[], value: JsonValue): void {
  let at = doc;
  for (let i = 0; i < path.length - 1; i++) {
    const step = path[i]!;
    const next = at[step];
    if (next === undefined) at = at[step] = {} as Record<string, unknown>;
    else if (typeof next === "object" && next !== null && !Array.isArray(next)) at = next as Record<string, unknown>;
    else return;
  }
  at[path[path.length - 1]!] = value;
}

/**
 * The claims document of `principal` acting as database role `role`, as the
 * policies read it: each claim the schema declares at the path the token
 * carries it (`claim team text @path("app_metadata.team")` at
 * `app_metadata.team`), as the principal holds it (a uuid in lowercase, a
 * bigint as its decimal text); `sub`; and `role`, the database role. A claim
 * the principal lacks (null) is left out, as is every member of the token
 * the schema does not declare.
 */
export function claimsDocument(auth: AuthDescriptor, principal: Principal, role: string): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (const c of auth.claims) {
    const v = principal.claims[c.name];
    if (v !== null && v !== undefined && c.name !== "sub") place(doc, c.path, v);
  }
  if (principal.subject !== "") doc.sub = principal.subject;
  doc.role = role;
  return doc;
}

/**
 * The database role `principal`'s statements run as under `database`:
 *
 * - anonymous: `database.anonymousRole`, else (with `role: "principal"`) its own, the anonymous role;
 * - `role: "principal"`: the first of its roles the schema declares;
 * - `role: { fixed }`: that role.
 * @throws ProblemError 401 `unauthorized` for an anonymous principal with no database role (a fixed role
 *   without `anonymousRole`); 403 `forbidden` for a principal none of whose roles the schema declares
 *   (one a middleware set)
 */
export function databaseRoleOf(auth: AuthDescriptor, database: DatabaseRoleDescriptor, principal: Principal): string {
  if (principal.anonymous && database.anonymousRole !== undefined) return database.anonymousRole;
  if (database.role !== "principal") {
    if (principal.anonymous)
      throw problem("unauthorized", "This endpoint needs a bearer token.", [
        { location: "header.authorization", detail: "no credential was given" },
      ]);
    return database.role.fixed;
  }
  const role = principal.roles.find((r) => auth.roles.includes(r));
  if (role === undefined)
    throw problem("forbidden", "None of your roles is one this service knows.", [
      { location: "request", detail: `not a declared role: ${principal.roles.join(", ")}` },
    ]);
  return role;
}

/**
 * The {@link DatabaseIdentity} of `principal` under `auth.database`
 * ({@link databaseRoleOf}, {@link claimsDocument}).
 * @throws ProblemError as {@link databaseRoleOf} does
 */
export function databaseIdentityOf(
  auth: AuthDescriptor,
  database: DatabaseRoleDescriptor,
  principal: Principal,
): DatabaseIdentity {
  const role = databaseRoleOf(auth, database, principal);
  return {
    role,
    claimsSetting: database.claimsSetting,
    claims: JSON.stringify(claimsDocument(auth, principal, role)),
  };
}
