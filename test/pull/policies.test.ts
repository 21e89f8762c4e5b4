/**
 * `resc pull` and row-level security (docs/decisions/1368-database-row-level-security.md):
 * the tables with it switched on and every policy are reported (name,
 * command, roles, USING, WITH CHECK), and a policy made of comparisons of a
 * column with a claim PostgREST's way, or with a literal, is also said as the
 * declared rule meaning the same; the pulled file still compiles.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { introspect, policyReport, ruleTerms } from "../../catalog/index.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";

describe("policy conditions as declared rules", () => {
  it("reads a column compared with a claim, through casts, nullif, json paths and auth.uid()", () => {
    expect(ruleTerms("(org = ((current_setting('request.jwt.claims'::text, true))::jsonb ->> 'org'::text))")).toEqual([
      { column: "org", op: "=", value: { claim: ["org"] } },
    ]);
    expect(
      ruleTerms(
        "(org_id = (((NULLIF(current_setting('request.jwt.claims'::text, true), ''::text))::jsonb ->> 'org'::text))::uuid)",
      ),
    ).toEqual([{ column: "org_id", op: "=", value: { claim: ["org"] } }]);
    expect(
      ruleTerms(
        "(team = (((current_setting('request.jwt.claims'::text, true))::json -> 'app_metadata'::text) ->> 'team'::text))",
      ),
    ).toEqual([{ column: "team", op: "=", value: { claim: ["app_metadata", "team"] } }]);
    expect(ruleTerms("(user_id = auth.uid())")).toEqual([{ column: "user_id", op: "=", value: { claim: ["sub"] } }]);
    expect(ruleTerms("(owner = current_setting('request.jwt.claim.sub'::text, true))")).toEqual([
      { column: "owner", op: "=", value: { claim: ["sub"] } },
    ]);
  });

  it("reads conjunctions, mirrored comparisons and literals; refuses anything else", () => {
    expect(
      ruleTerms("((((current_setting('request.jwt.claims'::text, true))::jsonb ->> 'org'::text) = org) AND (n > 1))"),
    ).toEqual([
      { column: "org", op: "=", value: { claim: ["org"] } },
      { column: "n", op: ">", value: { literal: "1" } },
    ]);
    expect(ruleTerms("(3 < n)")).toEqual([{ column: "n", op: ">", value: { literal: "3" } }]);
    expect(ruleTerms("((status)::text <> 'closed'::text)")).toEqual([
      { column: "status", op: "!=", value: { literal: "'closed'" } },
    ]);
    for (const refused of [
      "((org = 'a'::text) OR (n > 1))",
      "(NOT (n > 1))",
      "(lower(org) = ((current_setting('request.jwt.claims'::text, true))::jsonb ->> 'org'::text))",
      "(EXISTS ( SELECT 1 FROM members m WHERE (m.org = t.org)))",
      "(org = other_org)",
      "(org IN ( SELECT o.id FROM orgs o))",
      "true",
    ])
      expect(ruleTerms(refused), refused).toBeUndefined();
  });
});

describe("a policy's report", () => {
  it("names its roles and the claims a declared rule would need at a path", () => {
    const r = policyReport(
      {
        table: { schema: "public", name: "Notes" },
        name: "team_rows",
        permissive: true,
        command: "SELECT",
        roles: ["member", "admin"],
        using:
          "(team = (((current_setting('request.jwt.claims'::text, true))::json -> 'app_metadata'::text) ->> 'team'::text))",
      },
      "notes",
      (c) => c,
    );
    expect(r.what).toBe("row-level security policy notes.team_rows (SELECT, to member, admin)");
    expect(r.why).toContain(
      'as a declared rule: access member, admin { rows(list, read) team = claim.team } with claim team … @path("app_metadata.team") in the auth block',
    );
  });
});

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();

describe.skipIf(!server)("resc pull on a database with row-level security", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pull_policies");
    await db.executor.script(`
      CREATE SCHEMA auth;
      CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE
        AS $$ SELECT nullif(current_setting('request.jwt.claims', true)::jsonb ->> 'sub', '')::uuid $$;
      CREATE TABLE notes (id bigint PRIMARY KEY, org text NOT NULL, author uuid, "Level" int NOT NULL, body text);
      ALTER TABLE notes ENABLE ROW LEVEL SECURITY;
      ALTER TABLE notes FORCE ROW LEVEL SECURITY;
      CREATE POLICY by_org ON notes USING (org = current_setting('request.jwt.claims', true)::jsonb ->> 'org');
      CREATE POLICY own_edits ON notes FOR UPDATE TO PUBLIC USING (author = auth.uid());
      CREATE POLICY low_levels ON notes AS RESTRICTIVE FOR INSERT WITH CHECK ("Level" <= 3);
      CREATE POLICY by_exists ON notes FOR DELETE
        USING (EXISTS (SELECT 1 FROM pg_roles r WHERE r.rolname = current_user));
      CREATE TABLE locked (id int PRIMARY KEY);
      ALTER TABLE locked ENABLE ROW LEVEL SECURITY;
      CREATE TABLE plain (id int PRIMARY KEY, org text);
      CREATE POLICY dormant ON plain USING (org = 'a');
    `);
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("reports each table and policy, says the rules it can, and still writes a file that compiles", async () => {
    const read = await introspect(db.url!, ["public"]);
    expect(read.extras.policies?.map((p) => [p.name, p.command, p.permissive, p.roles])).toEqual([
      ["by_exists", "DELETE", true, ["public"]],
      ["by_org", "ALL", true, ["public"]],
      ["low_levels", "INSERT", false, ["public"]],
      ["own_edits", "UPDATE", true, ["public"]],
      ["dormant", "ALL", true, ["public"]],
    ]);
    const pulled = pulledFile(read.catalog, read.extras, "pulled.resource");
    expect(pulled.ok).toBe(true);
    if (!pulled.ok) return;
    const reported = pulled.leftOut.filter((l) => l.includes("row-level security"));
    const line = (needle: string): string => reported.find((l) => l.includes(needle)) ?? `(no line for ${needle})`;
    expect(line("table locked")).toMatch(/on, with no policy/);
    expect(line("table notes")).toMatch(/^row-level security of table notes \(forced: its owner too\): 4 policy/);
    expect(reported.some((l) => l.includes("table plain"))).toBe(false);
    expect(line("plain.dormant")).toContain("not enforced: row-level security is off on its table");
    expect(line("plain.dormant")).toContain('{ rows org = "a" }');
    expect(line("notes.by_org")).toContain("(ALL, to every role)");
    expect(line("notes.by_org")).toContain("USING (org = ((current_setting('request.jwt.claims'::text, true))");
    expect(line("notes.by_org")).toContain("as a declared rule: access <every role> { rows org = claim.org }");
    expect(line("notes.own_edits")).toContain("{ rows(update) author = claim.sub }");
    // A column the language renames is said by its pulled name.
    expect(line("notes.low_levels")).toContain("(INSERT, restrictive, to every role)");
    expect(line("notes.low_levels")).toMatch(/\{ check level <= 3 \}/);
    expect(line("notes.by_exists")).toContain("no declared rule says it");
    // In the file too, as comments.
    expect(pulled.text).toContain("// left out: row-level security policy notes.by_org");
  });
});
