/**
 * The `database { … }` block of `auth` in the validator and the descriptor
 * (docs/decisions/1368-database-row-level-security.md): what mounting would
 * refuse is reported at compile time, located where it is written, from the
 * one statement of the rules (runtime/auth/database-settings.ts): each
 * refused schema is refused by `checkDatabaseRoles` too, with the same
 * words; an accepted one mounts. The descriptor carries the block with its
 * default claims setting.
 */
import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { checkDatabaseRoles } from "../../runtime/auth/database.js";
import { AuthConfigError } from "../../runtime/auth/errors.js";
import type { Diagnostic } from "../../language/ir.js";
import { check, expectOne, locate, parseOk } from "./helpers.js";

function schema(database: string, { roles = "[member, admin]", anonymous = "anon" } = {}): string {
  return `auth {
  jwt { algorithms = [HS256] secret_env = "APP_SECRET" }
  roles = ${roles}
${anonymous ? `  anonymous = ${anonymous}\n` : ""}  claim org uuid
  database ${database}
}

table notes {
  id  bigint @primary_key
  org uuid
  resource "/notes" { ops = [reads] }
  access member { ops = [reads] }
}
`;
}

const CODES = [
  "invalid-database-role",
  "database-anonymous-role-missing",
  "invalid-claims-setting",
  "database-anonymous-unused",
];

function database(ds: readonly Diagnostic[]): Diagnostic[] {
  return ds.filter((d) => CODES.includes(d.code));
}

/** What mounting the schema's descriptor says of its database settings: undefined when it accepts them. */
function mountRefusal(src: string): string | undefined {
  const auth = buildDescriptor(parseOk(src)).auth!;
  try {
    checkDatabaseRoles(auth);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(AuthConfigError);
    return (e as Error).message;
  }
}

/**
 * The validator's errors and mount's refusal agree: mount refuses exactly when the validator reports an
 * error, and throws one of them (its first in the order of the settings), in the same words.
 */
function agrees(src: string): Diagnostic[] {
  const errors = database(check(src)).filter((d) => d.severity === "error");
  const refusal = mountRefusal(src);
  if (errors.length === 0) expect(refusal).toBeUndefined();
  else expect(errors.map((d) => `auth database ${d.message.replace(/^The database block's /, "")}`)).toContain(refusal);
  return errors;
}

describe("the database block in the validator", () => {
  it("accepts both forms of role, and mount accepts them too", () => {
    for (const src of [
      schema(`{ role = principal }`),
      schema(`{ role = principal anonymous = "web_anon" claims = "app.claims" }`),
      schema(`{ role = "authenticated" anonymous = "anon" }`),
      schema(`{ role = "authenticated" }`, { anonymous: "" }),
      // Any name PostgreSQL can have is one: it is a bind parameter, never SQL text.
      schema(`{ role = "Authenticated Users" anonymous = "anon-web" }`),
    ]) {
      expect(database(check(src))).toEqual([]);
      expect(agrees(src)).toEqual([]);
    }
  });

  it("refuses, with role = principal, a schema role PostgreSQL cannot become, at the role", () => {
    const src = schema(`{ role = principal }`, { roles: "[member, pg_monitor, public]" });
    const errors = agrees(src);
    expect(errors.map((d) => [d.code, d.message])).toEqual([
      [
        "invalid-database-role",
        `The database block's role = principal: the role "pg_monitor" is one of PostgreSQL's predefined roles (pg_*)`,
      ],
      ["invalid-database-role", `The database block's role = principal: the role "public" is public, which is no role`],
    ]);
    expect({ line: errors[0]!.span.line, column: errors[0]!.span.column }).toEqual(locate(src, "pg_monitor"));
    expect({ line: errors[1]!.span.line, column: errors[1]!.span.column }).toEqual(locate(src, "public"));
  });

  it("points at the auth block's anonymous setting when the anonymous role is the one at fault", () => {
    const src = schema(`{ role = principal }`, { anonymous: "none" });
    expectOne(check(src), src, "invalid-database-role", {
      message: `The database block's role = principal: the role "none" is none, which would leave the login role in place`,
      at: "none",
    });
    agrees(src);
  });

  it("refuses a fixed or anonymous database role PostgreSQL cannot become, at its value", () => {
    const long = "r".repeat(64);
    const src = schema(`{ role = "pg_read_all_data" }`, { anonymous: "" });
    expectOne(check(src), src, "invalid-database-role", {
      message: `The database block's role "pg_read_all_data" is one of PostgreSQL's predefined roles (pg_*)`,
      at: '"pg_read_all_data"',
    });
    agrees(src);
    const anon = schema(`{ role = principal anonymous = "${long}" }`);
    expectOne(check(anon), anon, "invalid-database-role", {
      message: `The database block's anonymous "${long}" is longer than 63 bytes`,
      at: `"${long}"`,
    });
    agrees(anon);
    // 63 bytes is still a name; a multi-byte one counts bytes, not characters.
    expect(agrees(schema(`{ role = "${"r".repeat(63)}" }`, { anonymous: "" }))).toEqual([]);
    expect(agrees(schema(`{ role = "${"é".repeat(32)}" }`, { anonymous: "" })).map((d) => d.code)).toEqual([
      "invalid-database-role",
    ]);
  });

  it("refuses a fixed role when anonymous requests have no database role", () => {
    const src = schema(`{ role = "authenticated" }`);
    expectOne(check(src), src, "database-anonymous-role-missing", {
      message: `The database block's role = "authenticated" is one role for every token, and the schema admits anonymous requests (anonymous = anon): name their database role (database anonymous = "…")`,
      at: '"authenticated"',
    });
    agrees(src);
  });

  it("refuses a claims setting that is no dotted custom setting name", () => {
    for (const bad of ["claims", "request..claims", "request.jwt-claims", ""]) {
      const src = schema(`{ role = principal claims = "${bad}" }`);
      expectOne(check(src), src, "invalid-claims-setting", {
        message: `The database block's claims ${JSON.stringify(bad)} is not a custom setting name (two or more identifiers joined by dots)`,
        at: `"${bad}" }`,
      });
      agrees(src);
    }
  });

  it("reports every problem at once", () => {
    const src = schema(`{ role = "public" claims = "x" }`);
    expect(agrees(src).map((d) => d.code)).toEqual(
      expect.arrayContaining(["invalid-database-role", "database-anonymous-role-missing", "invalid-claims-setting"]),
    );
    expect(agrees(src)).toHaveLength(3);
    // Mount names the first in the order of the settings: the role's own name.
    expect(mountRefusal(src)).toBe('auth database role "public" is public, which is no role');
  });

  it("warns of an anonymous database role no request can take", () => {
    const src = schema(`{ role = principal anonymous = "anon" }`, { anonymous: "" });
    expectOne(check(src), src, "database-anonymous-unused", {
      message: `The database block's anonymous role "anon" is never taken: the auth block admits no request without a token (set anonymous = name to admit them)`,
      at: '"anon"',
      severity: "warning",
    });
    expect(mountRefusal(src)).toBeUndefined();
  });
});

describe("the database block in the descriptor", () => {
  it("is auth.database, with PostgREST's claims setting by default", () => {
    expect(buildDescriptor(parseOk(schema(`{ role = principal }`))).auth!.database).toEqual({
      role: "principal",
      claimsSetting: "request.jwt.claims",
    });
    expect(
      buildDescriptor(parseOk(schema(`{ claims = "app.claims" anonymous = "web_anon" role = "authenticated" }`))).auth!
        .database,
    ).toEqual({ role: { fixed: "authenticated" }, anonymousRole: "web_anon", claimsSetting: "app.claims" });
  });

  it("is absent without the block: every statement runs as the login role, as before", () => {
    const src = schema(`{ role = principal }`).replace(/ {2}database \{[^}]*\}\n/, "");
    expect(src).not.toContain("database");
    const auth = buildDescriptor(parseOk(src)).auth!;
    expect("database" in auth).toBe(false);
  });
});
