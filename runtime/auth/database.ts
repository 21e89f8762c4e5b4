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
import { databaseSettingProblems } from "./database-settings.js";
import { AuthConfigError } from "./errors.js";
import type { Principal } from "./principal.js";

/**
 * Checks the `database` settings of `auth` once, when the service mounts:
 * every role the requests may act as is a name PostgreSQL can have (at most
 * 63 bytes, not `none`, `public` or `pg_*`), the claims setting is a dotted
 * custom setting name, and a fixed role comes with an anonymous role when
 * the schema admits anonymous requests. The rules are
 * {@link databaseSettingProblems}, which the compiler reports from too.
 * @throws AuthConfigError naming the setting (the first problem)
 */
export function checkDatabaseRoles(auth: AuthDescriptor): void {
  if (auth.database === undefined) return;
  const [first] = databaseSettingProblems(auth.roles, auth.anonymous, auth.database);
  if (first !== undefined) throw new AuthConfigError(`auth database ${first.message}`);
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
