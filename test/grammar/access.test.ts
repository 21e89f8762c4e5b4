/**
 * The `auth` block and `access` blocks parse to the IR docs/language.md
 * describes (docs/decisions/1367-access-rules.md): every construct, the
 * precedence of `not` > `and` > `or`, spans for every node, the IR
 * builder's own diagnostics, and recovery that keeps the rest of the file.
 */
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import type { RuleExprDecl, Span } from "../../language/ir.js";
import { withoutSpans } from "../../grammar/format/same-schema.js";
import { parseClean, table } from "./helpers.js";

const AUTH = `auth {
  jwt {
    algorithms      = [HS256, HS384]
    secret_env      = "APP_JWT_SECRET"
    issuer          = "resc"
    audience        = "app"
    clock_tolerance = 10
  }
  roles        = [member, admin]
  role_claim   = "app.role"
  default_role = member
  anonymous    = anon
  claim org uuid
  claim team text? @path("app_metadata.team")
  claim teams text[]
}
`;

const TABLE = (body: string) => `${AUTH}
table docs {
  id      bigint @primary_key @default(identity)
  org_id  uuid
  owner   text
  team    text?
  tags    text[]
  list_id bigint @ref(list, lists)
${body}
  resource "/docs" { ops = [crud, list] }
}
table lists {
  id     bigint @primary_key
  org_id uuid
}
`;

/** The text a span covers. */
function cut(text: string, span: Span): string {
  return text.slice(span.offset, span.offset + span.length);
}

/** An expression without spans, as nested arrays: easy to compare. */
function shape(e: RuleExprDecl): unknown {
  switch (e.kind) {
    case "cmp": {
      const left = e.left.relation ? `${e.left.relation}.${e.left.column}` : e.left.column;
      return e.right ? [e.op, left, withoutSpans(e.right)] : [e.op, left];
    }
    case "not":
      return ["not", shape(e.child)];
    default:
      return [e.kind, ...e.children.map(shape)];
  }
}

function rule(body: string, at = 0): RuleExprDecl {
  const s = parseClean(TABLE(`  access member {\n    ops = [all]\n    rows ${body}\n  }`));
  return table(s, "docs").access[0]!.rows[at]!.expr;
}

const claim = (name: string) => ({ kind: "claim", claim: name });
const lit = (value: unknown) => ({ kind: "literal", value });

describe("the auth block", () => {
  it("reads settings, claims and the jwt block", () => {
    const s = parseClean(AUTH);
    expect(withoutSpans(s.auth)).toEqual({
      roles: ["member", "admin"],
      roleClaim: "app.role",
      defaultRole: "member",
      anonymous: "anon",
      claims: [
        { name: "org", type: { name: "uuid", args: [], arrayDims: 0 }, nullable: false },
        {
          name: "team",
          type: { name: "text", args: [], arrayDims: 0 },
          nullable: true,
          path: "app_metadata.team",
        },
        { name: "teams", type: { name: "text", args: [], arrayDims: 1 }, nullable: false },
      ],
      jwt: {
        algorithms: ["HS256", "HS384"],
        secretEnv: "APP_JWT_SECRET",
        issuer: "resc",
        audience: "app",
        clockTolerance: 10,
        settingSpans: ["algorithms", "audience", "clock_tolerance", "issuer", "secret_env"],
      },
      settingSpans: ["anonymous", "default_role", "role_claim", "roles"],
    });
  });

  it("reads every key source and a negative tolerance as written (the validator judges them)", () => {
    const s = parseClean(
      `auth { jwt { algorithms = [RS256, ES256, EdDSA, PS512] jwks_url = "https://idp/jwks" public_key_env = "K" clock_tolerance = -5 } }`,
    );
    expect(s.auth?.jwt).toMatchObject({
      algorithms: ["RS256", "ES256", "EdDSA", "PS512"],
      jwksUrl: "https://idp/jwks",
      publicKeyEnv: "K",
      clockTolerance: -5,
    });
    expect(s.auth?.roles).toEqual([]);
  });

  it("gives every part a span", () => {
    const s = parseClean(AUTH);
    const a = s.auth!;
    expect(cut(AUTH, a.span)).toMatch(/^auth \{[\s\S]*\}$/);
    expect(a.roleSpans.map((sp) => cut(AUTH, sp))).toEqual(["member", "admin"]);
    expect(cut(AUTH, a.settingSpans["default_role"]!)).toBe("member");
    expect(cut(AUTH, a.settingSpans["role_claim"]!)).toBe('"app.role"');
    const team = a.claims[1]!;
    expect(cut(AUTH, team.span)).toBe('claim team text? @path("app_metadata.team")');
    expect(cut(AUTH, team.nameSpan)).toBe("team");
    expect(cut(AUTH, team.type.span)).toBe("text");
    expect(cut(AUTH, team.pathSpan!)).toBe('"app_metadata.team"');
    expect(cut(AUTH, a.jwt!.span)).toMatch(/^jwt \{[\s\S]*\}$/);
    expect(cut(AUTH, a.jwt!.settingSpans["algorithms"]!)).toBe("[HS256, HS384]");
  });

  it("takes claims of any type: enums, domains, arrays, multi-word types; attributes on the next line", () => {
    const s = parseClean(`enum level { low high }
domain org_id uuid
auth {
  claim level level
  claim org org_id
  claim at timestamp with time zone
  claim n integer[]?
    @path("x.y")
}`);
    expect(s.auth!.claims.map((c) => [c.name, c.type.name, c.type.arrayDims, c.nullable, c.path])).toEqual([
      ["level", "level", 0, false, undefined],
      ["org", "org_id", 0, false, undefined],
      ["at", "timestamptz", 0, false, undefined],
      ["n", "integer", 1, true, "x.y"],
    ]);
  });

  it("keeps `auth` usable as a name elsewhere", () => {
    const s = parseClean(`table auth {\n  auth text @primary_key\n  claim text\n  jwt text\n}`);
    expect(table(s, "auth").columns.map((c) => c.name)).toEqual(["auth", "claim", "jwt"]);
  });

  it.each([
    [`auth { rolez = [a] }`, "unknown-setting", `Unknown setting "rolez" in the auth block. Did you mean "roles"?`],
    [`auth { roles = [a] roles = [b] }`, "duplicate-setting", `Setting "roles" is already given at line 1`],
    [`auth { roles = [a, b, a] }`, "duplicate-role", `Role "a" is already listed in roles`],
    [
      `auth { roles = "a" }`,
      "invalid-value",
      `Expected a list of names, like [a, b] for "roles", found the string "a"`,
    ],
    [`auth { default_role = "a" }`, "invalid-value", `Expected a name for "default_role", found the string "a"`],
    [`auth { role_claim = role }`, "invalid-value", `Expected a string for "role_claim", found "role"`],
    [`auth { jwt { algorithms = [none] } }`, "unknown-algorithm", `Algorithm "none" is never accepted`],
    [
      `auth { jwt { algorithms = [HS265] } }`,
      "unknown-algorithm",
      `Unknown JWS algorithm "HS265". Did you mean "HS256"?`,
    ],
    [`auth { jwt { secret = "S" } }`, "unknown-setting", `Unknown setting "secret" in the jwt block`],
    [`auth { jwt { clock_tolerance = "30" } }`, "invalid-value", `Expected a whole number for "clock_tolerance"`],
    [`auth { jwt { } jwt { } }`, "duplicate-block", `The jwt block is already declared at line 1`],
    [`auth { claim org uuid @paht("a") }`, "unknown-attribute", `Unknown claim attribute "@paht"`],
    [`auth { claim org uuid @path }`, "missing-argument", `@path needs an argument`],
    [`auth { claim org uuid @path(a) }`, "invalid-argument", `Expected a string for @path, found "a"`],
    [`auth { }\nauth { }`, "duplicate-block", `The auth block is already declared at line 1`],
    [`auth { claim org uuidd }`, "unknown-type", `Unknown type "uuidd". Did you mean "uuid"?`],
  ])("%s: %s", (text, code, message) => {
    const d = parse(text, "t.resource").diagnostics;
    expect(d.map((x) => x.code)).toEqual([code]);
    expect(d[0]!.message).toContain(message);
  });
});

describe("access blocks", () => {
  it("reads every statement, in a block with a doc comment", () => {
    const text = TABLE(`
  /// Members see their organisation's documents.
  access member, admin {
    ops = [reads, create, update, delete, events, archive]
    rows org_id = claim.org
    rows(update, delete) owner = claim.sub
    check org_id = claim.org
    stamp org_id = claim.org
    stamp owner  = claim.sub
    hide [team, tags]
  }
  access anon { ops = [list] }`);
    const t = table(parseClean(text), "docs");
    expect(t.access).toHaveLength(2);
    const a = t.access[0]!;
    expect(a.doc).toBe("Members see their organisation's documents.");
    expect(a.roles).toEqual(["member", "admin"]);
    expect(a.ops).toEqual(["reads", "create", "update", "delete", "events", "archive"]);
    expect(a.rows.map((r) => [r.ops, shape(r.expr)])).toEqual([
      [undefined, ["eq", "org_id", claim("org")]],
      [
        ["update", "delete"],
        ["eq", "owner", claim("sub")],
      ],
    ]);
    expect(shape(a.check!)).toEqual(["eq", "org_id", claim("org")]);
    expect(a.stamps.map((s) => [s.column, s.claim])).toEqual([
      ["org_id", "org"],
      ["owner", "sub"],
    ]);
    expect(a.hide).toEqual(["team", "tags"]);
    expect(t.access[1]).toMatchObject({ roles: ["anon"], ops: ["list"], rows: [], stamps: [], hide: [] });
    expect(t.access[1]!.check).toBeUndefined();
  });

  it("gives every node a span", () => {
    const text = TABLE(`  access member, admin {
    ops = [reads, events]
    rows(update, delete) owner = claim.sub and not list.org_id in ["a", "b"]
    check team is not null
    stamp org_id = claim.org
    hide [team]
  }`);
    const a = table(parseClean(text), "docs").access[0]!;
    expect(cut(text, a.span)).toMatch(/^access member, admin \{[\s\S]*\}$/);
    expect(a.roleSpans.map((s) => cut(text, s))).toEqual(["member", "admin"]);
    expect(a.opSpans.map((s) => cut(text, s))).toEqual(["reads", "events"]);
    expect(cut(text, a.settingSpans["ops"]!)).toBe("[reads, events]");
    expect(cut(text, a.settingSpans["hide"]!)).toBe("[team]");
    expect(a.hideSpans.map((s) => cut(text, s))).toEqual(["team"]);
    const r = a.rows[0]!;
    expect(cut(text, r.span)).toBe(`rows(update, delete) owner = claim.sub and not list.org_id in ["a", "b"]`);
    expect(r.opSpans!.map((s) => cut(text, s))).toEqual(["update", "delete"]);
    const and = r.expr;
    if (and.kind !== "and") throw new Error("expected and");
    expect(cut(text, and.span)).toBe(`owner = claim.sub and not list.org_id in ["a", "b"]`);
    const [eq, not] = and.children;
    if (eq?.kind !== "cmp" || not?.kind !== "not" || not.child.kind !== "cmp") throw new Error("shape");
    expect(cut(text, eq.span)).toBe("owner = claim.sub");
    expect(cut(text, eq.left.span)).toBe("owner");
    expect(cut(text, eq.opSpan)).toBe("=");
    expect(cut(text, eq.right!.span)).toBe("claim.sub");
    expect(cut(text, not.span)).toBe(`not list.org_id in ["a", "b"]`);
    expect(cut(text, not.child.left.span)).toBe("list.org_id");
    const list = not.child.right!;
    if (list.kind !== "list") throw new Error("expected a list");
    expect(list.items.map((i) => cut(text, i.span))).toEqual(['"a"', '"b"']);
    const check = a.check!;
    if (check.kind !== "cmp") throw new Error("expected cmp");
    expect(cut(text, check.opSpan)).toBe("is not null");
    expect(cut(text, a.settingSpans["check"]!)).toBe("team is not null");
    const stamp = a.stamps[0]!;
    expect([cut(text, stamp.span), cut(text, stamp.columnSpan), cut(text, stamp.claimSpan)]).toEqual([
      "stamp org_id = claim.org",
      "org_id",
      "claim.org",
    ]);
  });

  it.each([
    ["team = claim.team", ["eq", "team", claim("team")]],
    ["team != 'x'".replace(/'/g, '"'), ["ne", "team", lit("x")]],
    ["id < 10", ["lt", "id", lit(10)]],
    ["id <= -1", ["lte", "id", lit(-1)]],
    ["id > 1.5", ["gt", "id", lit(1.5)]],
    ["id >= 2", ["gte", "id", lit(2)]],
    ["team in claim.teams", ["in", "team", claim("teams")]],
    [`team in ["a", "b"]`, ["in", "team", { kind: "list", items: [lit("a"), lit("b")] }]],
    ["id not in [1, 2]", ["nin", "id", { kind: "list", items: [lit(1), lit(2)] }]],
    ["tags has claim.team", ["has", "tags", claim("team")]],
    [`tags has "x"`, ["has", "tags", lit("x")]],
    ["team is null", ["isnull", "team"]],
    ["team is not null", ["notnull", "team"]],
    ["list.org_id = claim.org", ["eq", "list.org_id", claim("org")]],
    ["flag = true", ["eq", "flag", lit(true)]],
    ["flag != false", ["ne", "flag", lit(false)]],
    ["team = null", ["eq", "team", lit(null)]],
    ["flags in [true, false]", ["in", "flags", { kind: "list", items: [lit(true), lit(false)] }]],
  ])("reads `%s`", (written, expected) => {
    expect(shape(rule(written))).toEqual(expected);
  });

  it("binds not tighter than and, and tighter than or; parentheses group", () => {
    expect(shape(rule("a = 1 or b = 2 and not c = 3"))).toEqual([
      "or",
      ["eq", "a", lit(1)],
      ["and", ["eq", "b", lit(2)], ["not", ["eq", "c", lit(3)]]],
    ]);
    expect(shape(rule("(a = 1 or b = 2) and not not (c = 3)"))).toEqual([
      "and",
      ["or", ["eq", "a", lit(1)], ["eq", "b", lit(2)]],
      ["not", ["not", ["eq", "c", lit(3)]]],
    ]);
    expect(shape(rule("a = 1 and b = 2 and c = 3 or d = 4 or e = 5"))).toEqual([
      "or",
      ["and", ["eq", "a", lit(1)], ["eq", "b", lit(2)], ["eq", "c", lit(3)]],
      ["eq", "d", lit(4)],
      ["eq", "e", lit(5)],
    ]);
  });

  it("lets an expression span lines, in parentheses or not", () => {
    expect(
      shape(
        rule(`(org_id = claim.org
          or owner in claim.teams
          or team is null
          and not tags has "x")`),
      ),
    ).toEqual([
      "or",
      ["eq", "org_id", claim("org")],
      ["in", "owner", claim("teams")],
      ["and", ["isnull", "team"], ["not", ["has", "tags", lit("x")]]],
    ]);
    expect(shape(rule("org_id = claim.org\n      and owner = claim.sub"))).toEqual([
      "and",
      ["eq", "org_id", claim("org")],
      ["eq", "owner", claim("sub")],
    ]);
  });

  it("reads `rows (expr)` as an expression and `rows(op)` as the operation list", () => {
    const s = parseClean(
      TABLE(
        `  access member {\n    ops = [all]\n    rows (a = 1)\n    rows(update) (b = 2)\n    rows (read, list) c = 3\n  }`,
      ),
    );
    const rows = table(s, "docs").access[0]!.rows;
    expect(rows.map((r) => [r.ops, shape(r.expr)])).toEqual([
      [undefined, ["eq", "a", lit(1)]],
      [["update"], ["eq", "b", lit(2)]],
      [
        ["read", "list"],
        ["eq", "c", lit(3)],
      ],
    ]);
  });

  it("keeps the statement words usable as column names, and an `access` column", () => {
    const s = parseClean(`table t {
  id     bigint @primary_key
  access text
  rows   integer
  check  text
  stamp  timestamptz
  hide   boolean
  in     text
  is     text
  has    text
  access member { ops = [all] rows rows > 1 and check = "x" and hide = true and stamp is null and in = "a" }
}`);
    const t = table(s, "t");
    expect(t.columns.map((c) => c.name)).toEqual(["id", "access", "rows", "check", "stamp", "hide", "in", "is", "has"]);
    expect(shape(t.access[0]!.rows[0]!.expr)).toEqual([
      "and",
      ["gt", "rows", lit(1)],
      ["eq", "check", lit("x")],
      ["eq", "hide", lit(true)],
      ["isnull", "stamp"],
      ["eq", "in", lit("a")],
    ]);
  });

  it("reads an empty access block and one without commas or line breaks", () => {
    const s = parseClean(TABLE(`  access member {}\n  access admin { ops = [all], rows a = 1, hide [b] }`));
    const [m, a] = table(s, "docs").access;
    expect(m).toMatchObject({ roles: ["member"], ops: [], rows: [] });
    expect(a).toMatchObject({ roles: ["admin"], ops: ["all"], hide: ["b"] });
  });

  it("reads a bare name as a word (an enum value, judged by the validator), alone and in a list", () => {
    expect(shape(rule("status = open"))).toEqual(["eq", "status", { kind: "word", word: "open" }]);
    expect(shape(rule(`status in [open, "closed", 1]`))).toEqual([
      "in",
      "status",
      { kind: "list", items: [{ kind: "word", word: "open" }, lit("closed"), lit(1)] },
    ]);
  });

  it.each([
    ["access member { rows a = list.org_id }", "invalid-rule-operand", `found "list.org_id"`],
    [
      "access member { rows a in [1, null] }",
      "invalid-rule-operand",
      "A list in a rule holds strings, numbers, true, false and enum values, found null",
    ],
    ["access member { stamp a = org }", "invalid-stamp", "write stamp a = claim.org (a constant is a @default)"],
    ["access member { rows a is nul }", "invalid-rule-operand", `Expected null after "is", found "nul"`],
    [
      "access member { stamp a = 1 }",
      "invalid-stamp",
      "A stamp sets a column from a claim on create: write stamp a = claim.<name>",
    ],
    ["access member { hide = [a] }", "unknown-setting", `"hide" is a statement, written without "=": hide [a, b]`],
    [
      "access member { opz = [all] }",
      "unknown-setting",
      `Unknown setting "opz" in an access block. Did you mean "ops"?`,
    ],
    ["access member { ops = [all] ops = [list] }", "duplicate-setting", `Setting "ops" is already given`],
    ["access member { check a = 1 check b = 2 }", "duplicate-setting", `"check" is already given at line 3`],
    ["access member { hide [a] hide [b] }", "duplicate-setting", `"hide" is already given at line 3`],
    ["access member { hide [a, -b] }", "invalid-value", `Expected a column name in the list of "hide", found -b`],
    ["access member, member { }", "duplicate-role", `Role "member" is already named by this access block`],
    ["access member { ops = all }", "invalid-value", `Expected a list of names, like [a, b] for "ops"`],
  ])("%s: %s", (body, code, message) => {
    const d = parse(`table t {\n  id int @primary_key\n  ${body}\n}`, "t.resource").diagnostics;
    expect(d.map((x) => x.code)).toEqual([code]);
    expect(d[0]!.message).toContain(message);
    expect(d[0]!.span.line).toBe(3);
  });
});

describe("syntax errors and recovery", () => {
  const errors = (text: string) =>
    parse(text, "t.resource").diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.code}: ${d.message}`);

  it("names the block and the position of a statement it cannot read, and goes on", () => {
    const text = `table t {
  id int @primary_key
  access member {
    ops = [all]
    rows a ==  1
    stamp b = claim.c
  }
  resource "/t" { ops = [list] sortz = 1 }
}`;
    const out = errors(text);
    expect(out[0]).toMatch(/^5:13 /);
    // The error after the broken statement is still reported.
    expect(out.some((e) => e.includes(`unknown-setting: Unknown resource setting "sortz"`))).toBe(true);
    const t = parse(text, "t.resource").schema.tables[0]!;
    expect(t.resource?.path).toBe("/t");
  });

  it("reports a missing operand, a missing operator and an unclosed parenthesis with their places", () => {
    expect(errors(`table t {\n  access m { rows a = }\n}`)[0]).toMatch(/^2:23 expected-value: Expected claim.<name>/);
    expect(errors(`table t {\n  access m { rows a claim.x }\n}`)[0]).toMatch(/^2:21 .*Expected an operator/);
    const paren = errors(`table t {\n  access m {\n    rows (a = 1\n  }\n}`);
    expect(paren[0]).toContain("missing-paren");
    expect(paren[0]).toMatch(/^3:10 /);
  });

  it("names an access block left open", () => {
    const out = errors(`table t {\n  access member, admin {\n    ops = [all]\n`);
    expect(out.join("\n")).toContain(`Missing "}" to close access member, admin opened at line 2`);
    expect(errors(`auth {\n  roles = [a]\n`).join("\n")).toContain(
      `Missing "}" to close the auth block opened at line 1`,
    );
  });

  it("names what an access or auth block holds when a member is out of place", () => {
    expect(errors(`table t {\n  access m { @@scoped }\n}`)[0]).toContain(
      `expected ops = […], rows, check, stamp, hide or "}"`,
    );
    expect(errors(`auth { "x" }`)[0]).toContain(
      `expected a setting (name = value), a claim, a jwt or database block or "}"`,
    );
    expect(errors(`auth {\n  database { "x" }\n}`).join("\n")).toContain(
      `Unexpected "x" in the database block: expected a setting (name = value) or "}"`,
    );
    expect(errors(`auth {\n  database { role = principal\n`).join("\n")).toContain(
      `Missing "}" to close the database block opened at line 2`,
    );
  });

  it("keeps the declarations after a broken auth block", () => {
    const r = parse(`auth {\n  roles = [a\n}\ntable t {\n  id int @primary_key\n}\n`, "t.resource");
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.schema.tables.map((t) => t.name)).toEqual(["t"]);
  });

  it("drops a rule with a broken term rather than keeping half of it", () => {
    const r = parse(`table t {\n  access m { ops = [all] rows a = 1 and b = }\n}`, "t.resource");
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.schema.tables[0]!.access[0]!.rows).toEqual([]);
  });

  it("parses the same whole and declaration by declaration", () => {
    const text = TABLE(`  access member { ops = [all] rows (a = 1 or b in claim.teams) and not c is null }`);
    const quick = parse(text, "t.resource");
    const whole = parse(text, "t.resource", true);
    expect(whole).toEqual(quick);
  });
});
