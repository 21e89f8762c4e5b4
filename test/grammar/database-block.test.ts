/**
 * The `database { … }` block of `auth` parses to the IR
 * (docs/decisions/1368-database-row-level-security.md, "What the grammar
 * produces"): both forms of `role`, the anonymous role and the claims
 * setting, each with the span of its value; the IR builder's own
 * diagnostics (an unknown, repeated or missing setting, a value of the
 * wrong shape, a second block); and `database` stays a name everywhere
 * else.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import type { Span } from "../../language/ir.js";
import { parseClean, table } from "./helpers.js";

const auth = (database: string) => `auth {
  roles     = [member, admin]
  anonymous = anon
  database ${database}
}
`;

/** The text a span covers. */
function cut(text: string, span: Span): string {
  return text.slice(span.offset, span.offset + span.length);
}

/** The diagnostics of `text` as `line:column code`, and their messages. */
function problems(text: string): { at: string; message: string }[] {
  return parse(text, "t.resource").diagnostics.map((d) => ({
    at: `${d.span.line}:${d.span.column} ${d.code}`,
    message: d.message,
  }));
}

describe("the database block", () => {
  it("reads role = principal, the anonymous role and the claims setting, with their spans", () => {
    const text = auth(`{
    role      = principal
    anonymous = "anon"
    claims    = "request.jwt.claims"
  }`);
    const d = parseClean(text).auth!.database!;
    expect(d.role).toBe("principal");
    expect(d.anonymousRole).toBe("anon");
    expect(d.claimsSetting).toBe("request.jwt.claims");
    expect(cut(text, d.settingSpans["role"]!)).toBe("principal");
    expect(cut(text, d.settingSpans["anonymous"]!)).toBe('"anon"');
    expect(cut(text, d.settingSpans["claims"]!)).toBe('"request.jwt.claims"');
    expect(cut(text, d.span)).toMatch(/^database \{[\s\S]*\}$/);
  });

  it("reads a quoted role as one fixed database role, on one line with commas, beside jwt and claims", () => {
    const text = `auth {
  jwt { algorithms = [HS256] secret_env = "S" }
  roles = [member]
  database { role = "authenticated", anonymous = "anon" }
  claim org uuid
}
`;
    const a = parseClean(text).auth!;
    expect(a.database).toMatchObject({ role: { fixed: "authenticated" }, anonymousRole: "anon" });
    expect(a.database!.claimsSetting).toBeUndefined();
    expect(a.jwt?.secretEnv).toBe("S");
    expect(a.claims.map((c) => c.name)).toEqual(["org"]);
  });

  it("reports an unknown setting with a suggestion, and a repeated one", () => {
    const text = auth(`{
    role   = principal
    claim  = "request.jwt.claims"
    role   = "authenticated"
  }`);
    expect(problems(text)).toEqual([
      { at: "6:5 unknown-setting", message: 'Unknown setting "claim" in the database block. Did you mean "claims"?' },
      { at: "7:5 duplicate-setting", message: 'Setting "role" is already given at line 5' },
    ]);
    // The first role is kept.
    expect(parse(text, "t").schema.auth!.database!.role).toBe("principal");
  });

  it("refuses a bare role name that is not principal, suggesting the quotes", () => {
    const text = auth(`{ role = authenticated }`);
    expect(problems(text)).toEqual([
      {
        at: "4:21 invalid-value",
        message:
          'Expected principal or a database role\'s name in quotes for "role", found "authenticated": write role = principal (each caller acts as the database role named like its role) or role = "authenticated" (that database role for every token)',
      },
    ]);
    expect(problems(auth(`{ role = 3 }`)).map((p) => p.at)).toEqual(["4:21 invalid-value"]);
    expect(problems(auth(`{ role = principal anonymous = anon }`))).toEqual([
      { at: "4:43 invalid-value", message: 'Expected a string for "anonymous", found "anon"' },
    ]);
    expect(problems(auth(`{ role = principal claims = [a] }`)).map((p) => p.at)).toEqual(["4:40 invalid-value"]);
  });

  it("needs a role: missing-setting at the keyword", () => {
    expect(problems(auth(`{ anonymous = "anon" }`))).toEqual([
      {
        at: "4:3 missing-setting",
        message:
          'The database block needs a role: role = principal (each caller acts as the database role named like its role) or role = "authenticated" (that database role for every token)',
      },
    ]);
    // A role of the wrong shape is reported once, as a wrong value, not as a missing one too.
    expect(problems(auth(`{ role = 3 }`)).map((p) => p.at)).toEqual(["4:21 invalid-value"]);
  });

  it("is declared once per auth block", () => {
    const text = `auth {
  roles = [member]
  database { role = principal }
  database { role = "other" }
}
`;
    expect(problems(text)).toEqual([
      { at: "4:3 duplicate-block", message: "The database block is already declared at line 3" },
    ]);
    expect(parse(text, "t").schema.auth!.database!.role).toBe("principal");
  });

  it("is a block only inside auth and before {: elsewhere database is a name", () => {
    const s = parseClean(`auth {
  roles    = [member]
  database { role = principal }
}

table database {
  id       bigint @primary_key
  database text
  resource "/database" { ops = [reads] }
}
`);
    expect(table(s, "database").columns.map((c) => c.name)).toEqual(["id", "database"]);
    // `database = …` in auth is a setting, and an unknown one.
    expect(problems(`auth { roles = [member] database = principal }`).map((p) => p.at)).toEqual([
      "1:25 unknown-setting",
    ]);
  });
});
