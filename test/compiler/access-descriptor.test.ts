/**
 * The IR of `auth` and `access` blocks as runtime descriptors, and the
 * named operation sets expanded (docs/decisions/1367-access-rules.md).
 */
import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/index.js";
import { rolesGranted, rolesHiding } from "../../compiler/backends/openapi/access.js";
import { accessBlock, authBlock, claimRule, compiled, governed } from "../support/governed.js";

const SCHEMA = `
table notes {
  id     bigint @primary_key @default(identity)
  org_id uuid   @filterable
  title  text
  secret text?
  resource "/notes" {
    ops = [crud, list]
    events = true
    action archive {}
  }
}
table plain {
  id bigint @primary_key
  resource "/plain" { ops = [list] }
}
`;

describe("the roles the OpenAPI document names", () => {
  it("names the roles granted an operation and those a column is hidden from", () => {
    const block = (roles: string[], ops: string[], hide: string[] = []) => ({ roles, ops, rows: [], stamps: [], hide });
    const blocks = [
      block(["viewer"], ["list", "read"], ["secret"]),
      block(["member"], ["list", "read", "create"], ["secret"]),
      block(["member", "admin"], ["list", "read", "create", "update", "delete", "archive", "events"]),
    ];
    expect(rolesGranted(blocks, "list")).toEqual(["viewer", "member", "admin"]);
    expect(rolesGranted(blocks, "create")).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "archive")).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "restore")).toEqual([]);
    // member's third block shows the column: hidden only where every block naming the role hides it.
    expect(rolesHiding(blocks, "secret")).toEqual(["viewer"]);
  });
});

describe("buildDescriptor with auth and access", () => {
  const base = compiled(SCHEMA);

  it("leaves both out without an auth block", () => {
    const d = buildDescriptor(base);
    expect(d.auth).toBeUndefined();
    expect(Object.keys(d)).toEqual(["title", "version", "securitySchemes", "tables"]);
    expect(d.tables.every((t) => t.access === undefined)).toBe(true);
  });

  it("maps the auth block, defaults applied", () => {
    const d = buildDescriptor(governed(base, authBlock({ roles: ["member"], anonymous: "anon", issuer: "iss" }), {}));
    expect(Object.keys(d)).toEqual(["title", "version", "securitySchemes", "auth", "tables"]);
    expect(d.auth).toEqual({
      roles: ["member", "anon"],
      roleClaim: ["role"],
      claims: [{ name: "org", path: ["org"], kind: "uuid", array: false, sqlType: "uuid", nullable: false }],
      jwt: { algorithms: ["HS256"], clockToleranceSeconds: 30, secretEnv: "GOVERNED_JWT_SECRET", issuer: "iss" },
      anonymous: "anon",
    });
  });

  it("maps access blocks: sets expanded with the table's actions, rules, stamps, hidden columns", () => {
    const schema = governed(base, authBlock(), {
      notes: [
        accessBlock(["member"], ["reads", "create", "events"], {
          rows: [{ expr: claimRule("org_id", "org") }, { ops: ["update"], expr: claimRule("org_id", "org") }],
          stamps: [["org_id", "org"]],
          hide: ["secret"],
        }),
        accessBlock(["admin"], ["all"]),
      ],
    });
    const notes = buildDescriptor(schema).tables.find((t) => t.name === "notes");
    expect(notes?.access).toEqual([
      {
        roles: ["member"],
        ops: ["list", "read", "create", "events"],
        rows: [
          { rule: { kind: "cmp", column: "org_id", op: "eq", value: { claim: "org" } } },
          { ops: ["update"], rule: { kind: "cmp", column: "org_id", op: "eq", value: { claim: "org" } } },
        ],
        stamps: [{ column: "org_id", claim: "org" }],
        hide: ["secret"],
      },
      {
        roles: ["admin"],
        ops: ["list", "read", "create", "update", "delete", "archive", "events"],
        rows: [],
        stamps: [],
        hide: [],
      },
    ]);
    expect(buildDescriptor(schema).tables.find((t) => t.name === "plain")?.access).toBeUndefined();
  });
});
