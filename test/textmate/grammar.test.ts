/**
 * The TextMate grammar (grammar/textmate/resource.tmLanguage.json): it is
 * what grammar/textmate/build.ts generates, it colours each construct with
 * the intended scope, and every fixture tokenizes to its golden scope
 * listing under test/textmate/__snapshots__ (rewrite with UPDATE_GOLDEN=1
 * and review the diff).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resourceGrammarJson } from "../../grammar/textmate/build.js";
import { GRAMMAR_FILE, scopeListing, tokenize } from "./tokenize.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SNAPSHOTS = path.join(import.meta.dirname, "__snapshots__");
const UPDATE = process.env["UPDATE_GOLDEN"] === "1";

function resourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "expected" ? [] : resourceFiles(full);
    return name.endsWith(".resource") ? [full] : [];
  });
}

describe("the committed grammar", () => {
  it("is what build.ts generates (run npx tsx grammar/textmate/build.ts)", () => {
    expect(readFileSync(GRAMMAR_FILE, "utf8")).toBe(resourceGrammarJson());
  });
});

/** The scopes of the first token whose text is `text` (on `line` when given). */
async function scopesOf(source: string, text: string, line?: number): Promise<string> {
  const t = (await tokenize(source)).find((x) => x.text === text && (line === undefined || x.line === line));
  if (!t) throw new Error(`no token ${JSON.stringify(text)}`);
  return t.scopes.join(" ");
}

describe("scopes", () => {
  const SAMPLE = `/// A unit of work.
table tasks {
  id       bigint        @primary_key @default(identity) // the key
  title    text          @filterable @sortable(nulls: last)
  labels   text[]?       @filterable
  estimate numeric(6,2)? @check("estimate >= 0")
  due_at   timestamp with time zone @sortabel
  status   task_status   @default(todo)
  seq      int           @default(nextval('s'::regclass))
  list_id  bigint        @ref(list, lists, expandable) @inverse(tasks, order: [-position], limit: -1)
  /* block */
  @@index([labels], using: gin)
  resource "/tasks" {
    ops          = [crud, list]
    disable_transactions = true
  }
}
enum task_status { todo "PG-13" }
domain year integer @check("VALUE > \\"x\\"")
api {
  title = "T"
  security bearerAuth { scheme = "bearer" }
}
generate { dir = "out" }
`;

  it.each([
    ["/// A unit of work.", "comment.line.documentation.resource", undefined],
    ["table", "keyword.declaration.table.resource", undefined],
    ["tasks", "entity.name.type.table.resource", 2],
    ["id", "variable.other.property.column.resource", undefined],
    ["bigint", "support.type.builtin.resource", 3],
    ["@primary_key", "entity.name.tag.attribute.resource", undefined],
    ["identity", "constant.language.option.resource", undefined],
    ["// the key", "comment.line.double-slash.resource", undefined],
    ["nulls", "variable.parameter.resource", undefined],
    ["last", "constant.language.option.resource", undefined],
    ["?", "keyword.operator.optional.resource", 5],
    ["6", "constant.numeric.resource", undefined],
    ["timestamp with time zone", "support.type.builtin.resource", undefined],
    ["@sortabel", "invalid.illegal.unknown-attribute.resource", undefined],
    ["task_status", "entity.name.type.resource", 8],
    ["'s'", "string.quoted.single.sql.resource", undefined],
    ["nextval", "entity.name.function.resource", undefined],
    ["::", "keyword.operator.cast.resource", undefined],
    ["-", "keyword.operator.descending.resource", 10],
    ["-1", "constant.numeric.resource", undefined],
    ["/*", "comment.block.resource punctuation.definition.comment.begin.resource", undefined],
    ["@@index", "entity.name.tag.table-attribute.resource", undefined],
    ["resource", "keyword.other.resource.resource", 13],
    ['"/tasks"', "string.quoted.double.path.resource", undefined],
    ["ops", "variable.other.property.setting.resource", undefined],
    ["=", "keyword.operator.assignment.resource", 14],
    ["crud", "constant.language.option.resource", undefined],
    ["true", "constant.language.resource", undefined],
    ["enum", "keyword.declaration.enum.resource", undefined],
    ["todo", "variable.other.enummember.resource", 18],
    ["domain", "keyword.declaration.domain.resource", undefined],
    ["year", "entity.name.type.domain.resource", undefined],
    ['\\"', "string.quoted.double.resource constant.character.escape.resource", undefined],
    ["api", "keyword.declaration.api.resource", undefined],
    ["security", "keyword.other.security.resource", undefined],
    ["bearerAuth", "entity.name.type.security-scheme.resource", 22],
    ["generate", "keyword.declaration.generate.resource", undefined],
  ] as const)("%s → %s", async (text, scope, line) => {
    expect(await scopesOf(SAMPLE, text, line)).toContain(scope);
  });

  it("treats a column called domain as a column inside a table", async () => {
    expect(await scopesOf("table t {\n  domain text\n}\n", "domain")).toBe("variable.other.property.column.resource");
  });
});

describe("scopes of the auth and access blocks (docs/decisions/1367-access-rules.md)", () => {
  const SAMPLE = `auth {
  jwt { algorithms = [RS256] jwks_url = "https://idp/jwks" }
  roles = [member]
  claim org uuid @path("app.org")
}
table docs {
  id     bigint @primary_key
  access text
  resource "/docs" { ops = [reads] }
  access member, admin {
    ops = [reads]
    rows(read) org_id = claim.org and not (list.org_id != claim.org or n is null)
    check tags has "x"
    stamp org_id = claim.org
    hide [secret]
  }
}
`;

  it.each([
    ["auth", "keyword.declaration.auth.resource", 1],
    ["jwt", "keyword.other.jwt.resource", 2],
    ["RS256", "constant.language.option.resource", 2],
    ["claim", "keyword.other.claim.resource", 4],
    ["org", "variable.other.property.claim.resource", 4],
    ["@path", "entity.name.tag.attribute.resource", 4],
    ["access", "variable.other.property.column.resource", 8],
    ["access", "keyword.other.access.resource", 10],
    ["admin", "entity.name.type.role.resource", 10],
    ["rows", "keyword.other.statement.resource", 12],
    ["org_id", "variable.other.property.column.resource", 12],
    ["=", "keyword.operator.comparison.resource", 12],
    ["org", "variable.other.property.claim.resource", 12],
    ["and", "keyword.operator.logical.resource", 12],
    ["list", "variable.other.object.relation.resource", 12],
    ["!=", "keyword.operator.comparison.resource", 12],
    ["is", "keyword.operator.word.resource", 12],
    ["check", "keyword.other.statement.resource", 13],
    ["has", "keyword.operator.word.resource", 13],
    ["stamp", "keyword.other.statement.resource", 14],
    ["=", "keyword.operator.assignment.resource", 14],
    ["hide", "keyword.other.statement.resource", 15],
  ] as const)("%s → %s (line %i)", async (text, scope, line) => {
    expect(await scopesOf(SAMPLE, text, line)).toContain(scope);
  });
});

describe("scopes of the database block (docs/decisions/1368-database-row-level-security.md)", () => {
  const SAMPLE = `auth {
  roles = [member]
  database {
    role      = principal  // each caller as its role
    anonymous = "anon"
  }
  claim org uuid
}
table database {
  database text
}
`;

  it.each([
    ["database", "keyword.other.database.resource", 3],
    ["role", "variable.other.property.setting.resource", 4],
    ["principal", "constant.language.option.resource", 4],
    ["// each caller as its role", "comment.line.double-slash.resource", 4],
    ["anonymous", "variable.other.property.setting.resource", 5],
    ["anon", "string.quoted.double.resource", 5],
    // The block ends at its "}": the claim after it is the auth block's again.
    ["claim", "keyword.other.claim.resource", 7],
    // Outside auth, database is a name like any other.
    ["database", "entity.name.type.table.resource", 9],
    ["database", "variable.other.property.column.resource", 10],
  ] as const)("%s → %s (line %i)", async (text, scope, line) => {
    expect(await scopesOf(SAMPLE, text, line)).toContain(scope);
  });
});

describe("every fixture against its golden scope listing", () => {
  const files = [path.join(ROOT, "spec.resource"), ...resourceFiles(path.join(ROOT, "fixtures"))];
  it.each(files.map((f) => [path.relative(ROOT, f), f]))("%s", async (rel, f) => {
    const listing = await scopeListing(readFileSync(f, "utf8"));
    const golden = path.join(SNAPSHOTS, `${rel.replace(/\//g, "__")}.tokens.txt`);
    if (UPDATE || !existsSync(golden)) {
      if (!UPDATE) throw new Error(`missing golden ${golden}: run UPDATE_GOLDEN=1 npx vitest run test/textmate`);
      mkdirSync(SNAPSHOTS, { recursive: true });
      writeFileSync(golden, listing);
    }
    expect(
      listing,
      `${rel} no longer tokenizes as ${path.relative(ROOT, golden)} says; if the change is intended run UPDATE_GOLDEN=1 npx vitest run test/textmate and review the diff`,
    ).toBe(readFileSync(golden, "utf8"));
  });
});
