/**
 * The IR of `auth` and `access` blocks as runtime descriptors, and the
 * named operation sets expanded (docs/decisions/1367-access-rules.md).
 */
import { describe, expect, it } from "vitest";
import { buildDescriptor } from "../../compiler/index.js";
import { expandAccessOps, rolesGranted, rolesHiding } from "../../compiler/access-ops.js";
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

describe("expandAccessOps", () => {
  it("expands reads, crud and all, in canonical order, each once", () => {
    expect(expandAccessOps(["reads"])).toEqual(["list", "read"]);
    expect(expandAccessOps(["crud"])).toEqual(["read", "create", "update", "delete"]);
    expect(expandAccessOps(["events", "crud", "list", "read"])).toEqual([
      "list",
      "read",
      "create",
      "update",
      "delete",
      "events",
    ]);
    expect(expandAccessOps(["all"], ["archive", "restore"])).toEqual([
      "list",
      "read",
      "create",
      "update",
      "delete",
      "archive",
      "restore",
      "events",
    ]);
    expect(expandAccessOps(["restore", "read"], ["archive", "restore"])).toEqual(["read", "restore"]);
  });

  it("changes nothing on an expanded list", () => {
    const once = expandAccessOps(["all"], ["archive"]);
    expect(expandAccessOps(once, ["archive"])).toEqual(once);
  });

  it("names the roles granted an operation and those a column is hidden from", () => {
    const blocks = [
      accessBlock(["viewer"], ["reads"], { hide: ["secret"] }),
      accessBlock(["member"], ["reads", "create"], { hide: ["secret"] }),
      accessBlock(["member", "admin"], ["all"]),
    ];
    expect(rolesGranted(blocks, "list")).toEqual(["viewer", "member", "admin"]);
    expect(rolesGranted(blocks, "create")).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "archive", ["archive"])).toEqual(["member", "admin"]);
    expect(rolesGranted(blocks, "archive")).toEqual([]);
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
