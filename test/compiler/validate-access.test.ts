/**
 * The validator's rules for the `auth` block and `access` blocks
 * (docs/decisions/1367-access-rules.md): each diagnostic, on a schema that
 * is otherwise valid, located where the fault is written.
 */
import { describe, expect, it } from "vitest";
import { check, locate, withCode } from "./helpers.js";

interface Parts {
  jwt?: string;
  auth?: string;
  resource?: string;
  access?: string;
  columns?: string;
}

function schema(parts: Parts = {}): string {
  return `enum level { low high }

auth {
  jwt { ${parts.jwt ?? `algorithms = [HS256] secret_env = "APP_SECRET"`} }
  roles        = [member, admin]
  default_role = member
  anonymous    = anon
  claim org   uuid
  claim team  text?
  claim teams text[]
  claim n     integer
  claim lv    level
${parts.auth ?? ""}
}

table lists {
  id     bigint @primary_key
  org_id uuid
  resource "/lists" { ops = [reads] }
  access member { ops = [reads] }
}

table docs {
  id      bigint  @primary_key @default(identity)
  org_id  uuid
  owner   text
  team    text?
  secret  text?   @hidden
  n       integer
  flag    boolean
  tags    text[]
  lv      level
  summary text    @computed("'x'")
  list_id bigint  @ref(list, lists)
  ${parts.columns ?? ""}
  @@index([list_id])
  resource "/docs" {
    ${parts.resource ?? "ops = [crud, list]\n    events = true"}
    action archive @collection {}
  }
  ${parts.access ?? "access member { ops = [all] }"}
}
`;
}

/** Where the `nth` `at` is in `src`; a `|` in `at` marks the place within it (`"rows(|update)"`). */
function place(src: string, at: string, nth = 1): { line: number; column: number } {
  const bar = at.indexOf("|");
  const found = locate(src, at.replace("|", ""), nth);
  return bar < 0 ? found : { line: found.line, column: found.column + bar };
}

/** Exactly one diagnostic with `code` at the `nth` `at` and no other error; returns its message. */
function only(src: string, code: string, at: string, nth = 1): string {
  const ds = check(src);
  const found = withCode(ds, code);
  expect(found.map((d) => d.message)).toHaveLength(1);
  expect({ line: found[0]!.span.line, column: found[0]!.span.column }).toEqual(place(src, at, nth));
  expect(ds.filter((d) => d.severity === "error" && d.code !== code).map((d) => `${d.code}: ${d.message}`)).toEqual([]);
  return found[0]!.message;
}

describe("a valid schema", () => {
  it("passes with every construct", () => {
    const src = schema({
      access: `access member {
    ops = [reads, create, update, events, archive]
    rows org_id = claim.org and (team is null or team in claim.teams) and not n < 0
    rows(update) owner = claim.sub
    check list.org_id = claim.org and lv != "high" and tags has claim.team and flag = true
    stamp org_id = claim.org
    stamp owner  = claim.sub
    hide [team, tags]
  }
  access admin, anon { ops = [all] rows n in [1, 2] and owner not in ["x"] and lv = claim.lv }`,
    });
    expect(check(src)).toEqual([]);
  });

  it("passes enum values written bare or quoted, alone, in lists and as an enum array's element", () => {
    const src = schema({
      columns: "lvs level[]",
      access: `access member { ops = [all] rows lv = low or lv in [low, "high"] or lv not in [high] or lvs has high or lv != "low" }`,
    });
    expect(check(src)).toEqual([]);
  });

  it("passes a column one block both stamps and hides (the server sets it, the role never sees it)", () => {
    expect(check(schema({ access: `access member { ops = [all] stamp owner = claim.sub hide [owner] }` }))).toEqual([]);
  });

  it("passes rules over a column the same role hides, and a default sort by it (the view drops it from the order)", () => {
    const src = schema({
      resource: "ops = [crud, list]\n    events = true\n    default_sort = [-team]",
      columns: "",
      access: `access member { ops = [all] rows team is null or team = claim.team check team is not null hide [team] }`,
    }).replace("team    text?", "team    text? @sortable");
    expect(check(src)).toEqual([]);
  });

  it("passes a text claim compared with a uuid column, and a claim declared as sub text with a path", () => {
    const src = schema({
      auth: `  claim sub text @path("user.id")`,
      access: `access member { ops = [all] rows org_id = claim.sub }`,
    });
    expect(check(src)).toEqual([]);
  });

  it("counts a stamp by every creating role as setting a required read-only column", () => {
    const src = schema({
      columns: "tenant uuid @read_only",
      access: `access member { ops = [create, list] stamp tenant = claim.org }\n  access admin { ops = [all] stamp tenant = claim.org }`,
    });
    expect(check(src)).toEqual([]);
    const missing = schema({
      columns: "tenant uuid @read_only",
      access: `access member { ops = [create, list] stamp tenant = claim.org }\n  access admin { ops = [all] }`,
    });
    expect(withCode(check(missing), "required-column-unwritable")).toHaveLength(1);
  });
});

describe("auth block diagnostics", () => {
  it("unknown-role: default_role names an undeclared role", () => {
    const src = schema().replace("default_role = member", "default_role = membr");
    expect(only(src, "unknown-role", "membr")).toContain(`Did you mean "member"?`);
  });

  it("accepts the anonymous role as default_role and in roles too", () => {
    expect(check(schema().replace("default_role = member", "default_role = anon"))).toEqual([]);
    expect(check(schema().replace("roles        = [member, admin]", "roles = [member, admin, anon]"))).toEqual([]);
  });

  it.each([
    ["duplicate-claim", `  claim org text`, "org text", `Claim "org" is already declared at line 8`],
    ["sub-claim-type", `  claim sub integer`, "sub |integer", `Claim "sub" is always the token's subject`],
    ["sub-claim-type", `  claim sub text?`, "sub |text?", `Claim "sub" is always`],
    ["invalid-claim-type", `  claim doc jsonb`, "jsonb", `Claim "doc" cannot be of type "jsonb"`],
    ["invalid-claim-type", `  claim raw bytea`, "bytea", `cannot be of type "bytea"`],
    ["invalid-claim-type", `  claim grid integer[][]`, "integer[][]", "never a list of lists"],
    ["invalid-claim-path", `  claim x text @path("a..b")`, `"a..b"`, `The @path "a..b" is not a dotted path`],
  ])("%s: %s", (code, auth, at, message) => {
    const src = schema({ auth });
    expect(only(src, code, at)).toContain(message);
  });

  it("invalid-claim-path: role_claim", () => {
    const src = schema({ auth: `  role_claim = ".role"` });
    expect(only(src, "invalid-claim-path", `".role"`)).toContain(`"role_claim" = ".role" is not a dotted path`);
  });

  it.each([
    ["jwt-missing-algorithms", `secret_env = "S"`, "jwt {", "accepts no algorithm"],
    ["jwt-missing-algorithms", `algorithms = [] secret_env = "S"`, "[]", "accepts no algorithm"],
    [
      "jwt-mixed-algorithms",
      `algorithms = [HS256, ES256] secret_env = "S"`,
      "[HS256, ES256]",
      "mixes shared-secret HS256 with public-key ES256",
    ],
    ["jwt-missing-key-source", `algorithms = [RS256]`, "jwt {", "names no key"],
    [
      "jwt-conflicting-key-sources",
      `algorithms = [RS256] jwks_url = "https://i/jwks" public_key_env = "K"`,
      `"K"`,
      `already takes its key from "jwks_url"`,
    ],
    [
      "jwt-key-algorithm-mismatch",
      `algorithms = [HS256] jwks_url = "https://i/jwks"`,
      `"https://i/jwks"`,
      `"jwks_url" holds public keys, but HS256 is verified with a shared secret`,
    ],
    [
      "jwt-key-algorithm-mismatch",
      `algorithms = [HS512] public_key_env = "K"`,
      `"K"`,
      `"public_key_env" holds public keys`,
    ],
    [
      "jwt-key-algorithm-mismatch",
      `algorithms = [RS256, EdDSA] secret_env = "S"`,
      `"S"`,
      `"secret_env" holds a shared secret, but RS256, EdDSA are verified with a public key`,
    ],
    [
      "invalid-env-name",
      `algorithms = [HS256] secret_env = "hunter2 is my secret"`,
      `"hunter2`,
      "never the key itself",
    ],
    ["invalid-env-name", `algorithms = [RS256] public_key_env = "-----BEGIN"`, `"-----BEGIN"`, "not a variable name"],
    ["invalid-jwks-url", `algorithms = [ES256] jwks_url = "idp/jwks"`, `"idp/jwks"`, "not an absolute http(s) URL"],
    [
      "negative-clock-tolerance",
      `algorithms = [HS256] secret_env = "S" clock_tolerance = -5`,
      "-5",
      "-5 cannot be one",
    ],
  ])("%s: %s", (code, jwt, at, message) => {
    const src = schema({ jwt });
    expect(only(src, code, at)).toContain(message);
  });

  it("accepts every key source with algorithms of its kind, and a tolerance of 0", () => {
    for (const jwt of [
      `algorithms = [HS256, HS384, HS512] secret_env = "S" clock_tolerance = 0`,
      `algorithms = [RS256, PS256, ES256, EdDSA] jwks_url = "https://idp.example/.well-known/jwks.json"`,
      `algorithms = [ES384] public_key_env = "APP_JWT_PUBLIC_KEY" issuer = "i" audience = "a"`,
    ])
      expect(check(schema({ jwt }))).toEqual([]);
  });
});

describe("access block diagnostics", () => {
  it("access-without-auth", () => {
    const src = `table t {\n  id int @primary_key\n  resource "/t" { ops = [list] }\n  access member { ops = [all] }\n}\n`;
    expect(only(src, "access-without-auth", "access member")).toContain("only an auth block declares");
  });

  it("access-without-resource", () => {
    const src = schema().replace(`resource "/lists" { ops = [reads] }`, "");
    expect(only(src, "access-without-resource", "access member")).toBe(
      `Table "lists" has no resource block: there is nothing to grant access to`,
    );
  });

  it("resource-without-access (a warning)", () => {
    const src = schema().replace(`access member { ops = [reads] }`, "");
    const ds = check(src);
    expect(withCode(ds, "resource-without-access").map((d) => [d.severity, d.span.line])).toEqual([
      ["warning", locate(src, "lists {").line],
    ]);
  });

  it.each([
    [
      "unknown-role",
      `access membr { ops = [all] }`,
      "membr",
      `Role "membr" is not declared in the auth block (roles: member, admin, anon). Did you mean "member"?`,
    ],
    [
      "duplicate-access",
      `access member { ops = [list] }\n  access admin, member { ops = [all] }`,
      "admin, |member",
      `Role "member" is already granted access to table "docs" at line`,
    ],
    ["unknown-access-op", `access member { ops = [lsit] }`, "lsit", `Unknown operation "lsit"`],
    [
      "unknown-access-op",
      `access member { ops = [all] rows(archiv) n = 1 }`,
      "rows(|archiv",
      `Unknown operation "archiv" in rows(…). Did you mean "archive"?`,
    ],
    [
      "access-op-not-served",
      `access member { ops = [delete] }`,
      "delete",
      `"delete" is an operation resource "/docs" does not serve`,
      1,
      `ops = [list, read, create, update]`,
    ],
    [
      "access-op-not-served",
      `access member { ops = [crud] }`,
      "crud",
      `"crud" grants delete, which resource "/docs" does not serve`,
      1,
      `ops = [list, read, create, update]`,
    ],
    [
      "access-events-without-feed",
      `access member { ops = [list, events] }`,
      "events",
      `"events" is granted, but resource "/docs" has no change feed`,
      1,
      "ops = [crud, list]",
    ],
    [
      "rows-op-not-granted",
      `access member { ops = [reads] rows(update) n = 1 }`,
      "rows(|update",
      '"rows(update)" rules update, which this access block does not grant (ops = [reads])',
    ],
    [
      "rows-op-not-granted",
      `access member { ops = [list] rows(reads) n = 1 }`,
      "rows(|reads",
      '"rows(reads)" rules read',
    ],
    [
      "unknown-column",
      `access member { ops = [all] rows ownr = 1 }`,
      "rows |ownr",
      `A rule names "ownr", which is not a column of table "docs". Did you mean "owner"?`,
    ],
    [
      "unknown-column",
      `access member { ops = [all] rows list.org = 1 }`,
      "list.org",
      `A rule names "org", which is not a column of table "lists"`,
    ],
    ["unknown-column", `access member { ops = [all] stamp ownr = claim.sub }`, "ownr", `Stamp names "ownr"`],
    ["unknown-column", `access member { ops = [all] hide [nope] }`, "nope", `Hide […] names "nope"`],
    [
      "access-hidden-column",
      `access member { ops = [all] rows secret is null }`,
      "secret is",
      `A rule names "docs.secret", which is @hidden`,
    ],
    [
      "access-hidden-column",
      `access member { ops = [all] stamp secret = claim.sub }`,
      "secret =",
      `Stamp names "docs.secret", which is @hidden`,
    ],
    [
      "unknown-relation",
      `access member { ops = [all] rows lst.org_id = claim.org }`,
      "lst.org_id",
      `Table "docs" has no forward relation "lst" (forward relations: list). Did you mean "list"?`,
    ],
    [
      "unknown-claim",
      `access member { ops = [all] rows org_id = claim.orgg }`,
      "claim.orgg",
      `Claim "orgg" is not declared in the auth block (claims: org, team, teams, n, lv, sub). Did you mean "org"?`,
    ],
    [
      "unknown-claim",
      `access member { ops = [all] stamp owner = claim.nme }`,
      "claim.nme",
      `Claim "nme" is not declared`,
    ],
    [
      "rule-operator-type",
      `access member { ops = [all] rows n has 1 }`,
      "has",
      `"has" does not apply to "docs.n" (integer): a rule on it takes =, !=, <, <=, >, >=, in, not in`,
    ],
    [
      "rule-operator-type",
      `access member { ops = [all] rows flag < true }`,
      "< true",
      `"<" does not apply to "docs.flag" (boolean): a rule on it takes =, !=, in, not in`,
    ],
    [
      "rule-operator-type",
      `access member { ops = [all] rows tags < "a" }`,
      `< "a"`,
      `"<" does not apply to "docs.tags" (text[])`,
    ],
    [
      "rule-operator-type",
      `access member { ops = [all] rows owner is null }`,
      "is null",
      `"is null" does not apply to "docs.owner" (text): it is not nullable, so the test is always false`,
    ],
    [
      "rule-value-type",
      `access member { ops = [all] rows n = "1" }`,
      `"1"`,
      `"=" on "docs.n" (integer): "1" is not a value of its type: it takes a whole number`,
    ],
    ["rule-value-type", `access member { ops = [all] rows n = 1.5 }`, "1.5", "it takes a whole number"],
    ["rule-value-type", `access member { ops = [all] rows lv = "mid" }`, `"mid"`, `it takes one of low, high`],
    [
      "rule-value-type",
      `access member { ops = [all] rows lv = hgih }`,
      "hgih",
      `"=" on "docs.lv" (level): "hgih" is not a value of its type: it takes one of low, high. Did you mean "high"?`,
    ],
    [
      "rule-value-type",
      `access member { ops = [all] rows lv in [low, "hihg"] }`,
      `"hihg"`,
      `"hihg" is not a value of its type: it takes one of low, high. Did you mean "high"?`,
    ],
    ["rule-value-type", `access member { ops = [all] rows lv in low }`, "low }", `it takes a list, like "in" [low]`],
    [
      "invalid-rule-operand",
      `access member { ops = [all] rows owner = alice }`,
      "alice",
      `"alice" is a bare name, which only an enum column takes (as one of its values), and "docs.owner" is text: write claim.alice for a claim, "alice" for a string`,
    ],
    [
      "invalid-rule-operand",
      `access member { ops = [all] rows tags has low }`,
      "low }",
      `"low" is a bare name, which only an enum column takes`,
    ],
    ["rule-value-type", `access member { ops = [all] rows org_id = "x" }`, `"x"`, "it takes a UUID string"],
    ["rule-value-type", `access member { ops = [all] rows flag = 1 }`, "1 }", "it takes true or false"],
    [
      "rule-value-type",
      `access member { ops = [all] rows team = null }`,
      "null",
      `"=" on "docs.team" (text): null is no value (SQL's = NULL is never true): write team is null`,
    ],
    [
      "rule-value-type",
      `access member { ops = [all] rows team != null }`,
      "null",
      `null is no value (SQL's != NULL is never true): write team is not null`,
    ],
    [
      "rule-value-type",
      `access member { ops = [all] rows not (owner != null) }`,
      "null",
      `null is no value, and "owner" is not nullable: it is never null, so the comparison would always be true`,
    ],
    ["rule-value-type", `access member { ops = [all] rows team < null }`, "null", "null is no value: write is null"],
    ["rule-value-type", `access member { ops = [all] rows n in 1 }`, "1 }", `it takes a list, like "in" [1]`],
    ["rule-value-type", `access member { ops = [all] rows n = [1] }`, "[1]", "it takes one value, not a list"],
    ["rule-value-type", `access member { ops = [all] rows n in [] }`, "in |[]", "an empty list matches nothing"],
    [
      "rule-value-type",
      `access member { ops = [all] rows n not in [1, "2"] }`,
      `"2"`,
      `"2" is not a value of its type`,
    ],
    ["rule-value-type", `access member { ops = [all] rows tags has 1 }`, "1 }", "it takes a string"],
    [
      "claim-type-mismatch",
      `access member { ops = [all] rows n = claim.org }`,
      "claim.org",
      `Claim "org" (uuid) cannot be compared with "docs.n" (integer): their types differ`,
    ],
    [
      "claim-type-mismatch",
      `access member { ops = [all] rows n in claim.n }`,
      "claim.n",
      `"in" on "docs.n" takes a list, but claim "n" is one integer`,
    ],
    [
      "claim-type-mismatch",
      `access member { ops = [all] rows owner = claim.teams }`,
      "claim.teams",
      `claim "teams" is a list (text[]): write in claim.teams`,
    ],
    [
      "claim-type-mismatch",
      `access member { ops = [all] stamp n = claim.org }`,
      "claim.org",
      `Claim "org" (uuid) cannot be stored in "docs.n" (integer)`,
    ],
    [
      "claim-type-mismatch",
      `access member { ops = [all] stamp tags = claim.team }`,
      "claim.team",
      `Claim "team" (text?) cannot be stored in "docs.tags" (text[])`,
    ],
    [
      "stamp-nullable-claim",
      `access member { ops = [all] stamp owner = claim.team }`,
      "claim.team",
      `Claim "team" is optional (text?) but "docs.owner" is required`,
    ],
    [
      "stamp-computed-column",
      `access member { ops = [all] stamp summary = claim.sub }`,
      "summary =",
      `"docs.summary" is computed`,
    ],
    [
      "stamp-generated-column",
      `access member { ops = [all] stamp id = claim.n }`,
      "id =",
      `"docs.id" is numbered by the database (@default(identity))`,
    ],
    [
      "duplicate-stamp",
      `access member { ops = [all] stamp owner = claim.sub stamp owner = claim.sub }`,
      "stamp |owner",
      `"owner" is already stamped by this access block`,
      2,
    ],
    ["hide-primary-key", `access member { ops = [all] hide [id] }`, "hide [|id]", `"docs.id" is the primary key`],
  ])("%s: %s", (code, access, at, message, nth = 1, resource?: string) => {
    const src = schema(resource === undefined ? { access } : { access, resource });
    expect(only(src, code, at, nth)).toContain(message);
  });

  it("unknown-relation: an inverse relation is named as such", () => {
    const src = schema({ access: `access member { ops = [all] rows kids.id = 1 }` }).replace(
      "  org_id uuid\n  resource",
      "  org_id uuid\n  doc_id bigint @ref(doc, docs) @inverse(kids) @filterable\n  @@index([doc_id])\n  resource",
    );
    expect(only(src, "unknown-relation", "kids.id")).toContain(
      `"kids" is an inverse relation of table "docs": a rule follows only a forward relation`,
    );
  });

  it.each([
    ["access-without-ops", `access member {}`, "  |access member {}", "grants no operation"],
    ["check-without-writes", `access member { ops = [reads] check n = 1 }`, "n = 1", "grants none of them"],
    [
      "stamp-without-create",
      `access member { ops = [reads] stamp owner = claim.sub }`,
      "stamp owner",
      "does not grant create",
    ],
    [
      "rows-create-with-check",
      `access member { ops = [all] rows(create, update) n > 0 check org_id = claim.org }`,
      "rows(|create",
      "A rows rule judges nothing for create while the block has a check",
    ],
    [
      "rows-create-with-check",
      `access member { ops = [all] rows(crud) n > 0 check org_id = claim.org }`,
      "rows(|crud",
      `"crud" includes create`,
    ],
    [
      "check-contradicts-rows",
      `access member { ops = [all] rows org_id = claim.org and n > 0 check n > 0 and org_id != claim.org }`,
      "org_id != claim.org",
      "No row satisfies both this check and the rows rule at line 42",
    ],
    [
      "check-contradicts-rows",
      `access member { ops = [all] rows team is null check team is not null }`,
      "team is not null",
      "No row satisfies both",
    ],
    [
      "check-contradicts-rows",
      `access member { ops = [all] rows lv in [low] check lv not in [low] }`,
      "lv not in",
      "every row a create or update writes would be one this role cannot read",
    ],
  ])("%s (a warning)", (code, access, at, message) => {
    const src = schema({ access });
    const found = withCode(check(src), code);
    expect(found.map((d) => d.severity)).toEqual(["warning"]);
    expect(found[0]!.message).toContain(message);
    expect({ line: found[0]!.span.line, column: found[0]!.span.column }).toEqual(place(src, at));
  });

  it("warns of no contradiction a row could escape: another claim, a rows(update) rule, a rows(create) without check", () => {
    for (const access of [
      `access member { ops = [all] rows org_id = claim.org check org_id != claim.lv }`,
      `access member { ops = [all] rows owner = claim.sub check owner != claim.team }`,
      `access member { ops = [all] rows(update) team is null check team is not null }`,
      `access member { ops = [all] rows org_id = claim.org rows(create) n > 0 }`,
      `access member { ops = [all] rows org_id = claim.org or n > 0 check org_id != claim.org }`,
    ]) {
      const ds = check(schema({ access })).filter((d) => d.severity === "warning");
      expect(
        ds.filter((d) => d.code === "check-contradicts-rows" || d.code === "rows-create-with-check"),
        access,
      ).toEqual([]);
    }
  });
});
