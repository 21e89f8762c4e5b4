/**
 * The language server on `auth` and `access` blocks
 * (docs/decisions/1367-access-rules.md): completion of roles, claims,
 * columns, operations and statements where each is written, hover with the
 * reference text and the schema's claims and roles, definitions and the
 * outline. Answered from an `Analysis`, as the server does.
 */
import { describe, expect, it } from "vitest";
import { Analysis } from "../../cli/lsp/analysis.js";
import { complete } from "../../cli/lsp/completion.js";
import { hover } from "../../cli/lsp/hover.js";
import { declarationSpan, resolve } from "../../cli/lsp/resolve.js";
import { documentSymbols } from "../../cli/lsp/symbols.js";
import { KEYWORDS, AUTH_SETTING_DOCS, DATABASE_SETTING_DOCS } from "../../grammar/textmate/reference.js";

const SCHEMA = `auth {
  jwt {
    algorithms = [HS256]
    secret_env = "S"
  }
  roles        = [member, admin]
  default_role = member
  anonymous    = anon
  claim org   uuid
  claim teams text[] @path("app.teams")
  database {
    role      = principal
    anonymous = "anon_db"
  }
}

table lists {
  id     bigint @primary_key
  org_id uuid

  resource "/lists" { ops = [reads] }

  access member { ops = [reads] }
}

table docs {
  id      bigint @primary_key
  org_id  uuid
  owner   text
  secret  text?  @hidden
  list_id bigint @ref(list, lists)

  @@index([list_id])

  resource "/docs" {
    ops = [crud, list]
    action archive {}
  }

  access member, admin {
    ops = [reads, archive]
    rows org_id = claim.org and list.org_id = claim.org
    stamp owner = claim.sub
    hide [owner]
  }
}
`;

const place = (offset: number) => ({
  offset,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
});

/** The labels completion offers where `|` stands after SCHEMA's `from` is replaced by `to`. */
function labels(from: string, to: string): string[] {
  if (!SCHEMA.includes(from)) throw new Error(`no ${from}`);
  const marked = SCHEMA.replace(from, to);
  const offset = marked.indexOf("|");
  const text = marked.slice(0, offset) + marked.slice(offset + 1);
  return complete(new Analysis(text, "t.resource"), place(offset)).map((x) => x.label);
}

const analysis = new Analysis(SCHEMA, "t.resource");

/** The offset of the `nth` `needle` in SCHEMA, plus `into`. */
function at(needle: string, nth = 0, into = 0): number {
  let i = -1;
  for (let k = 0; k <= nth; k++) i = SCHEMA.indexOf(needle, i + 1);
  if (i < 0) throw new Error(`no ${needle}`);
  return i + into;
}

describe("completion", () => {
  it("offers the auth keyword at the top level and no block-only keyword", () => {
    const top = labels("\ntable lists", "\n|\ntable lists");
    expect(top).toEqual(expect.arrayContaining(["api", "auth", "generate", "enum", "domain", "table"]));
    for (const inner of ["access", "claim", "jwt", "rows", "resource", "security"]) expect(top).not.toContain(inner);
  });

  it("offers the roles, the anonymous one included, in access headers", () => {
    expect(labels("  @@index", "  access |\n  @@index")).toEqual(["member", "admin", "anon"]);
    expect(labels("  @@index", "  access member, |\n  @@index")).toEqual(["member", "admin", "anon"]);
  });

  it("offers roles after default_role = and anonymous =", () => {
    expect(labels("default_role = member", "default_role = m|")).toEqual(["member", "admin", "anon"]);
    expect(labels("anonymous    = anon", "anonymous    = a|")).toEqual(["member", "admin", "a"]);
  });

  it("offers the auth settings not yet written, claim and jwt; types after a claim's name; jwt settings and algorithms", () => {
    const inAuth = labels("  claim org", "  |\n  claim org");
    expect(inAuth).toEqual(expect.arrayContaining(["role_claim", "claim", "jwt"]));
    expect(inAuth).not.toContain("roles");
    expect(labels("  claim org", "  claim level |\n  claim org")).toEqual(
      expect.arrayContaining(["text", "uuid", "integer"]),
    );
    expect(labels("    secret_env", "    |\n    secret_env")).toEqual(
      expect.arrayContaining(["jwks_url", "issuer", "audience", "clock_tolerance"]),
    );
    expect(labels("[HS256]", "[HS256, |]")).toEqual(expect.arrayContaining(["RS256", "ES256", "EdDSA"]));
  });

  it("offers database in auth, its settings not yet written inside it, and principal after role = (docs/decisions/1368-database-row-level-security.md)", () => {
    expect(labels("  claim org", "  |\n  claim org")).toContain("database");
    const inside = labels('    anonymous = "anon_db"', '    anonymous = "anon_db"\n    |');
    expect(inside).toEqual(["claims"]);
    expect(labels("role      = principal", "role      = |")).toEqual(["principal"]);
    // Its anonymous role is a database name, a string: no schema role is offered.
    expect(labels('anonymous = "anon_db"', "anonymous = |")).toEqual([]);
  });

  it("offers claims after claim., in rules and stamps, sub included", () => {
    expect(labels("org_id = claim.org and", "org_id = claim.|org and")).toEqual(["org", "teams", "sub"]);
    expect(labels("stamp owner = claim.sub", "stamp owner = claim.|")).toEqual(["org", "teams", "sub"]);
    expect(labels("stamp owner = claim.sub", "stamp owner = |")).toEqual(["claim.org", "claim.teams", "claim.sub"]);
  });

  it("offers the row's columns and relations in a rule, claim.<name> after an operator, the target's after relation.", () => {
    const rule = (typed: string) => labels("    stamp owner", `    rows ${typed}|\n    stamp owner`);
    expect(rule("")).toEqual(["id", "org_id", "owner", "list_id", "list"]);
    expect(rule("owner = ")).toEqual(["claim.org", "claim.teams", "claim.sub"]);
    expect(rule("owner in ")).toEqual(["claim.org", "claim.teams", "claim.sub"]);
    expect(rule("list.")).toEqual(["id", "org_id"]);
    expect(rule("(owner = claim.sub or ")).toEqual(["id", "org_id", "owner", "list_id", "list"]);
  });

  it("offers the statements and ops at the start of an access line, operations and actions in ops and rows(…)", () => {
    const statements = labels("    hide [owner]", "    |\n    hide [owner]");
    expect(statements).toEqual(expect.arrayContaining(["rows", "check", "stamp", "hide"]));
    expect(statements).not.toContain("ops");
    expect(labels("ops = [reads, archive]", "ops = [reads, archive, |]")).toEqual(
      expect.arrayContaining(["all", "events", "crud", "archive"]),
    );
    expect(labels("    stamp owner", "    rows(update, |) owner = claim.sub\n    stamp owner")).toEqual(
      expect.arrayContaining(["update", "all", "archive"]),
    );
  });

  it("offers the columns other than the key inside hide [ … ], and the stamp's column", () => {
    expect(labels("hide [owner]", "hide [owner, |]")).toEqual(["org_id", "owner", "secret", "list_id"]);
    expect(labels("    stamp owner", "    stamp |\n    stamp owner")).toEqual(["id", "org_id", "owner", "list_id"]);
  });

  it("offers access among the table's members when there is an auth block", () => {
    expect(labels("  @@index", "  |\n  @@index")).toContain("access");
  });
});

describe("hover and definition", () => {
  const hoverAt = (offset: number) => hover(analysis, offset)?.markdown;

  it("explains the keywords and settings with the reference text", () => {
    expect(hoverAt(at("auth {", 0, 1))).toContain(KEYWORDS["auth"]!.summary);
    expect(hoverAt(at("jwt {", 0, 1))).toContain(KEYWORDS["jwt"]!.summary);
    expect(hoverAt(at("database {", 0, 1))).toContain(KEYWORDS["database"]!.summary);
    expect(hoverAt(at("role      = principal", 0, 1))).toContain(DATABASE_SETTING_DOCS["role"]!.summary);
    expect(hoverAt(at('anonymous = "anon_db"', 0, 1))).toContain(DATABASE_SETTING_DOCS["anonymous"]!.summary);
    expect(hoverAt(at("claim org", 0, 1))).toContain(KEYWORDS["claim"]!.summary);
    expect(hoverAt(at("access member, admin", 0, 1))).toContain(KEYWORDS["access"]!.summary);
    expect(hoverAt(at("rows org_id", 0, 1))).toContain(KEYWORDS["rows"]!.summary);
    expect(hoverAt(at("stamp owner", 0, 1))).toContain(KEYWORDS["stamp"]!.summary);
    expect(hoverAt(at("hide [", 0, 1))).toContain(KEYWORDS["hide"]!.summary);
    expect(hoverAt(at("default_role", 0, 1))).toContain(AUTH_SETTING_DOCS["default_role"]!.summary);
    expect(hoverAt(at("secret_env", 0, 1))).toContain("HS* secret");
    expect(hoverAt(at("ops = [reads, archive]", 0, 1))).toContain("operations the roles may perform");
  });

  it("describes claims and roles, and jumps to where they are declared", () => {
    const claim = at("claim.org", 0, 7);
    expect(hoverAt(claim)).toBe("Claim **org** `uuid`: required.");
    expect(declarationSpan(resolve(analysis, claim)!.meaning)?.offset).toBe(at("org   uuid"));
    expect(hoverAt(at("claim.sub", 0, 7))).toContain("the token's subject");
    expect(hoverAt(at("teams text[]", 0, 1))).toBe(
      "Claim **teams** `text[]`: required, at `app.teams` in the payload.",
    );
    const admin = at("member, admin", 0, 9);
    expect(hoverAt(admin)).toBe("Role **admin**, declared in the auth block.");
    expect(declarationSpan(resolve(analysis, admin)!.meaning)?.offset).toBe(at("admin]"));
    expect(hoverAt(at("anonymous    = anon", 0, 16))).toBe("Role **anon**: the role of a request without a token.");
  });

  it("resolves a rule's columns, through a relation too", () => {
    expect(hoverAt(at("rows org_id", 0, 6))).toContain("docs.org_id uuid");
    expect(hoverAt(at("list.org_id", 0, 6))).toContain("lists.org_id uuid");
  });
});

describe("document symbols", () => {
  it("lists the auth block and each table's access blocks", () => {
    const symbols = documentSymbols(analysis.schema);
    expect(symbols.map((s) => s.name)).toEqual(["auth", "lists", "docs"]);
    expect(symbols[2]!.children!.map((c) => [c.name, c.detail]).slice(-2)).toEqual([
      ["/docs", "list, read, create, update, delete"],
      ["access member, admin", "reads, archive"],
    ]);
  });
});
