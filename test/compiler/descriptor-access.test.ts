/**
 * `Schema.auth` and `TableDecl.access` become the runtime's `AuthDescriptor`
 * and `AccessDescriptor`s (docs/decisions/1367-access-rules.md): named sets
 * expanded, paths split on dots, claims typed as columns are, `sub` always
 * there, defaults applied, and nothing added to a schema without them.
 */
import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/descriptor.js";
import { validate } from "../../compiler/validate/index.js";
import { parseOk } from "./helpers.js";

function describeValid(src: string) {
  const schema = parseOk(src);
  expect(validate(schema).filter((d) => d.severity === "error")).toEqual([]);
  return buildDescriptor(schema);
}

const BASE = (auth: string, access: string, resource = "ops = [crud, list]\n    events = true") => `
enum tier { bronze gold }
auth {
${auth}
}
table docs {
  id     bigint @primary_key @default(identity)
  org_id uuid
  owner  text
  tier   tier
  tags   text[]
  resource "/docs" {
    ${resource}
    action archive {}
    action purge @collection {}
  }
  ${access}
}
`;

describe("the auth descriptor", () => {
  it("maps every setting, splits paths and types claims as columns are typed", () => {
    const d = describeValid(
      BASE(
        `  jwt { algorithms = [RS256] jwks_url = "https://idp/jwks" issuer = "i" audience = "a" clock_tolerance = 5 }
  roles = [member, admin]
  role_claim = "app_metadata.roles"
  default_role = member
  anonymous = anon
  claim org uuid @path("app_metadata.org")
  claim tier tier?
  claim teams text[]`,
        "access member { ops = [all] }",
      ),
    );
    expect(d.auth).toEqual({
      jwt: {
        algorithms: ["RS256"],
        jwksUrl: "https://idp/jwks",
        issuer: "i",
        audience: "a",
        clockToleranceSeconds: 5,
      },
      roles: ["member", "admin", "anon"],
      roleClaim: ["app_metadata", "roles"],
      defaultRole: "member",
      anonymous: "anon",
      claims: [
        { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
        { name: "org", path: ["app_metadata", "org"], kind: "uuid", array: false, sqlType: "uuid", nullable: false },
        {
          name: "tier",
          path: ["tier"],
          kind: "enum",
          array: false,
          sqlType: "tier",
          nullable: true,
          enumValues: ["bronze", "gold"],
        },
        { name: "teams", path: ["teams"], kind: "text", array: true, sqlType: "text[]", nullable: false },
      ],
    });
  });

  it("applies the defaults: role claim `role`, clock tolerance 30, no jwt when the block has none", () => {
    const hs = describeValid(BASE(`  jwt { algorithms = [HS256] secret_env = "S" }\n  roles = [member]`, ""));
    expect(hs.auth).toEqual({
      jwt: { algorithms: ["HS256"], secretEnv: "S", clockToleranceSeconds: 30 },
      roles: ["member"],
      roleClaim: ["role"],
      claims: [{ name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false }],
    });
    const none = describeValid(BASE(`  roles = [member]`, ""));
    expect(none.auth && "jwt" in none.auth).toBe(false);
  });

  it("keeps a declared sub where it is declared, with its path", () => {
    const d = describeValid(BASE(`  roles = [member]\n  claim org uuid\n  claim sub text @path("user.id")`, ""));
    expect(d.auth!.claims.map((c) => [c.name, c.path])).toEqual([
      ["org", ["org"]],
      ["sub", ["user", "id"]],
    ]);
  });

  it("leaves auth and access out of a schema without them", () => {
    const d = describeValid(`table t {\n  id int @primary_key\n  resource "/t" { ops = [list] }\n}\n`);
    expect("auth" in d).toBe(false);
    expect("access" in d.tables[0]!).toBe(false);
  });
});

describe("the access descriptor", () => {
  const AUTH = `  roles = [member, admin]\n  anonymous = anon\n  claim org uuid\n  claim teams text[]`;

  it("expands reads, crud and all (every served op, events, every action) in one order", () => {
    const d = describeValid(
      BASE(
        AUTH,
        `access member { ops = [purge, events, reads, create] }
  access admin { ops = [all] }
  access anon { ops = [crud, list] }`,
      ),
    );
    expect(d.tables[0]!.access!.map((a) => [a.roles, a.ops])).toEqual([
      [["member"], ["list", "read", "create", "events", "purge"]],
      [["admin"], ["list", "read", "create", "update", "delete", "events", "archive", "purge"]],
      [["anon"], ["list", "read", "create", "update", "delete"]],
    ]);
  });

  it("gives `all` only what the resource serves", () => {
    const d = describeValid(BASE(AUTH, `access member { ops = [all] }`, "ops = [reads]"));
    expect(d.tables[0]!.access![0]!.ops).toEqual(["list", "read", "archive", "purge"]);
  });

  it("maps rules, checks, stamps and hidden columns; rows(op) expanded, rows(all) as every op", () => {
    const d = describeValid(
      BASE(
        AUTH,
        `access member {
    ops = [all]
    rows org_id = claim.org and not (tier = "gold" or tags has "x")
    rows(reads, archive) owner in claim.teams
    rows(all) owner != ""
    check owner not in ["a", "b"] and tags = ["x", "y"] and id >= -2
    stamp org_id = claim.org
    stamp owner  = claim.sub
    hide [tags, tier]
  }`,
      ),
    );
    expect(d.tables[0]!.access).toEqual([
      {
        roles: ["member"],
        ops: ["list", "read", "create", "update", "delete", "events", "archive", "purge"],
        rows: [
          {
            rule: {
              kind: "and",
              children: [
                { kind: "cmp", column: "org_id", op: "eq", value: { claim: "org" } },
                {
                  kind: "not",
                  child: {
                    kind: "or",
                    children: [
                      { kind: "cmp", column: "tier", op: "eq", value: { literal: "gold" } },
                      { kind: "cmp", column: "tags", op: "has", value: { literal: "x" } },
                    ],
                  },
                },
              ],
            },
          },
          {
            ops: ["list", "read", "archive"],
            rule: { kind: "cmp", column: "owner", op: "in", value: { claim: "teams" } },
          },
          { rule: { kind: "cmp", column: "owner", op: "ne", value: { literal: "" } } },
        ],
        check: {
          kind: "and",
          children: [
            { kind: "cmp", column: "owner", op: "nin", value: { literal: ["a", "b"] } },
            { kind: "cmp", column: "tags", op: "eq", value: { literal: ["x", "y"] } },
            { kind: "cmp", column: "id", op: "gte", value: { literal: -2 } },
          ],
        },
        stamps: [
          { column: "org_id", claim: "org" },
          { column: "owner", claim: "sub" },
        ],
        hide: ["tags", "tier"],
      },
    ]);
  });

  it("names a forward relation's column with the relation", () => {
    const d = describeValid(`
auth { roles = [member]  claim org uuid }
table orgs {
  id uuid @primary_key
  resource "/orgs" { ops = [reads] }
  access member { ops = [reads] }
}
table docs {
  id     bigint @primary_key
  org_id uuid   @ref(org, orgs)
  @@index([org_id])
  resource "/docs" { ops = [reads] }
  access member { ops = [reads], rows org.id = claim.org }
}
`);
    expect(d.tables[1]!.access![0]!.rows).toEqual([
      { rule: { kind: "cmp", column: "id", relation: "org", op: "eq", value: { claim: "org" } } },
    ]);
  });

  it("leaves check out when none is declared", () => {
    const d = describeValid(BASE(AUTH, `access member { ops = [list] }`));
    expect("check" in d.tables[0]!.access![0]!).toBe(false);
  });
});
