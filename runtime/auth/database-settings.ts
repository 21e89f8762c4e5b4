/**
 * The one statement of what the `database { … }` settings of `auth` may name
 * (docs/decisions/1368-database-row-level-security.md): role names PostgreSQL
 * can have and become, and a claims setting `set_config` accepts. The
 * runtime refuses these at mount (`checkDatabaseRoles`, runtime/auth/database.ts)
 * and the compiler reports them at compile time with the setting's code frame
 * (compiler/validate/auth.ts), from this one list. It imports only types.
 */
import type { DatabaseRoleDescriptor } from "../descriptor.js";

/** PostgreSQL's longest identifier, in bytes (NAMEDATALEN - 1); a longer role name is never found. */
const MAX_ROLE_BYTES = 63;

/** A custom setting's name as `set_config` accepts it: two or more identifiers joined by dots. */
const CUSTOM_SETTING = /^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)+$/;

/** The claims setting of `database { … }` when none is given: PostgREST's. */
export const DEFAULT_CLAIMS_SETTING = "request.jwt.claims";

/**
 * Why `name` cannot be a database role the service acts as (a phrase, "is empty"), or undefined when it can:
 * empty, longer than 63 bytes, `none` (which would leave the login role in place), `public`, one of
 * PostgreSQL's predefined `pg_*` roles, or holding a NUL. Any other text is a role name PostgreSQL can have
 * (it is sent as a bind parameter, never spliced into SQL).
 */
export function databaseRoleNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (new TextEncoder().encode(name).length > MAX_ROLE_BYTES) return `is longer than ${MAX_ROLE_BYTES} bytes`;
  if (name.toLowerCase() === "none") return "is none, which would leave the login role in place";
  if (name.toLowerCase() === "public") return "is public, which is no role";
  if (name.toLowerCase().startsWith("pg_")) return "is one of PostgreSQL's predefined roles (pg_*)";
  if (name.includes("\0")) return "holds a NUL character";
  return undefined;
}

/** One thing the `database` settings get wrong: the setting at fault and a sentence saying what. */
export interface DatabaseSettingProblem {
  /** The setting of `database { … }` at fault. */
  setting: "role" | "anonymous" | "claims";
  /**
   * `role-name`: a role requests would act as that PostgreSQL cannot have or become; `anonymous-missing`: a
   * fixed role while the schema admits anonymous requests and `anonymous` is not given; `claims-setting`: a
   * claims setting that is no custom setting name.
   */
  kind: "role-name" | "anonymous-missing" | "claims-setting";
  /**
   * With `role = principal`, the schema's role that cannot be a database role (the anonymous role included);
   * absent for a problem of the setting's own value.
   */
  role?: string;
  /** What is wrong, beginning with the setting: `role "pg_monitor" is one of PostgreSQL's predefined roles (pg_*)`. */
  message: string;
}

/**
 * Every problem of `database` for a service whose roles are `roles` (the anonymous role included) and whose
 * anonymous role is `anonymous`, in the order of the settings: a role requests would act as that
 * {@link databaseRoleNameProblem} refuses (with `role = principal`, each of `roles`), a fixed role with no
 * `anonymousRole` while the schema admits anonymous requests, and a claims setting that is not a dotted custom
 * setting name. Empty when mounting would accept them.
 */
export function databaseSettingProblems(
  roles: readonly string[],
  anonymous: string | undefined,
  database: DatabaseRoleDescriptor,
): DatabaseSettingProblem[] {
  const out: DatabaseSettingProblem[] = [];
  if (database.role === "principal") {
    for (const role of roles) {
      const why = databaseRoleNameProblem(role);
      if (why !== undefined)
        out.push({
          setting: "role",
          kind: "role-name",
          role,
          message: `role = principal: the role ${JSON.stringify(role)} ${why}`,
        });
    }
  } else {
    const fixed = database.role.fixed;
    const why = databaseRoleNameProblem(fixed);
    if (why !== undefined)
      out.push({ setting: "role", kind: "role-name", message: `role ${JSON.stringify(fixed)} ${why}` });
    if (anonymous !== undefined && database.anonymousRole === undefined)
      out.push({
        setting: "role",
        kind: "anonymous-missing",
        message:
          `role = ${JSON.stringify(fixed)} is one role for every token, and the schema admits ` +
          `anonymous requests (anonymous = ${anonymous}): name their database role (database anonymous = "…")`,
      });
  }
  if (database.anonymousRole !== undefined) {
    const why = databaseRoleNameProblem(database.anonymousRole);
    if (why !== undefined)
      out.push({
        setting: "anonymous",
        kind: "role-name",
        message: `anonymous ${JSON.stringify(database.anonymousRole)} ${why}`,
      });
  }
  if (!CUSTOM_SETTING.test(database.claimsSetting))
    out.push({
      setting: "claims",
      kind: "claims-setting",
      message: `claims ${JSON.stringify(database.claimsSetting)} is not a custom setting name (two or more identifiers joined by dots)`,
    });
  return out;
}
