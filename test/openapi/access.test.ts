/**
 * What the OpenAPI document says about authentication and access rules
 * (docs/decisions/1367-access-rules.md): the bearer scheme of an `auth`
 * block's `jwt`, and on every operation of a served table its security
 * requirement, the 401 and 403 answers, the roles that may use it and the
 * columns hidden from some. The `auth` and `access` IR is added by hand to
 * a parsed schema (test/support/governed.ts).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { emitOpenApi, printOpenApi, type JsonSchema, type OpenApiDocument } from "../../compiler/index.js";
import { DEFAULT_BEARER_SCHEME } from "../../compiler/backends/openapi/access.js";
import type { Operation } from "../../compiler/backends/openapi/types.js";
import { accessBlock, authBlock, claimRule, compiled, governed } from "../support/governed.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

const SCHEMA = `
table notes {
  id     bigint @primary_key @default(identity)
  org_id uuid   @filterable
  title  text   @filterable
  secret text?
  resource "/notes" {
    ops = [crud, list]
    events = true
    filtered_writes = true
    action archive {}
  }
}
table plain {
  id bigint @primary_key
  resource "/plain" { ops = [list] }
}
`;

const BLOCKS = {
  notes: [
    accessBlock(["viewer"], ["reads", "events"], { rows: [{ expr: claimRule("org_id", "org") }], hide: ["secret"] }),
    accessBlock(["member"], ["reads", "create", "update", "events"], {
      rows: [{ expr: claimRule("org_id", "org") }],
      stamps: [["org_id", "org"]],
    }),
    accessBlock(["admin"], ["all"]),
  ],
};

type Method = "get" | "post" | "patch" | "delete";

function operations(doc: OpenApiDocument): { method: Method; path: string; op: Operation }[] {
  const out: { method: Method; path: string; op: Operation }[] = [];
  for (const [p, item] of Object.entries(doc.paths))
    for (const method of ["get", "post", "patch", "delete"] as const) {
      const op = item[method];
      if (op) out.push({ method, path: p, op });
    }
  return out;
}

function op(doc: OpenApiDocument, p: string, method: Method): Operation {
  const o = doc.paths[p]?.[method];
  if (!o) throw new Error(`no ${method} ${p}`);
  return o;
}

async function expectValid(doc: OpenApiDocument): Promise<void> {
  const v = new Validator({ allErrors: true });
  const r = await v.validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
  expect(r.errors ?? []).toEqual([]);
  expect(r.valid).toBe(true);
}

const base = compiled(SCHEMA);
const plainDoc = emitOpenApi(base);
const doc = emitOpenApi(governed(base, authBlock({ roles: ["viewer", "member", "admin"], issuer: "notes" }), BLOCKS));

describe("a schema with an auth block whose jwt the api block does not name", () => {
  it("is valid OpenAPI 3.1", () => expectValid(doc));

  it("declares a bearer JWT scheme under the default name", () => {
    expect(Object.keys(doc.components.securitySchemes ?? {})).toEqual([DEFAULT_BEARER_SCHEME]);
    const scheme = doc.components.securitySchemes?.[DEFAULT_BEARER_SCHEME];
    expect(scheme).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(scheme?.description).toContain("signed with HS256, issued by `notes`");
    expect(scheme?.description).toContain("A request without a token is a 401.");
    // Secrets are named by environment variable only, and the document names neither.
    expect(scheme?.description).not.toContain("GOVERNED_JWT_SECRET");
  });

  it("requires it on every operation of a served table, with 401 and 403 answers", () => {
    const all = operations(doc);
    // list, create, updateWhere, deleteWhere, read, update, delete, events, archive, and plain's list.
    expect(all.map((o) => o.op.operationId).sort()).toEqual(
      [
        "archiveNotes",
        "createNotes",
        "deleteNotes",
        "deleteWhereNotes",
        "listNotes",
        "listPlain",
        "readNotes",
        "updateNotes",
        "updateWhereNotes",
        "watchNotes",
      ].sort(),
    );
    for (const { op: o } of all) {
      expect(o.security).toEqual([{ [DEFAULT_BEARER_SCHEME]: [] }]);
      expect(o.responses["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
      expect(o.responses["403"]).toEqual({ $ref: "#/components/responses/Forbidden" });
    }
  });

  it("declares the 401 with its WWW-Authenticate challenge and the 403, both problem documents", () => {
    const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
    const unauthorized = doc.components.responses["Unauthorized"];
    expect(unauthorized).toMatchObject({ content: problem });
    const header = (unauthorized as { headers?: Record<string, { description: string }> }).headers?.[
      "WWW-Authenticate"
    ];
    expect(header?.description).toContain('Bearer realm="governed"');
    expect(header?.description).toContain('error="invalid_token"');
    expect(doc.components.responses["Forbidden"]).toMatchObject({ content: problem });
  });

  it("names the roles each operation is granted to", () => {
    expect(op(doc, "/notes", "get").description).toContain("Access: roles `viewer`, `member`, `admin`.");
    expect(op(doc, "/notes", "post").description).toContain("Access: roles `member`, `admin`.");
    expect(op(doc, "/notes/{id}", "patch").description).toContain("Access: roles `member`, `admin`.");
    expect(op(doc, "/notes/{id}", "delete").description).toContain("Access: roles `admin`.");
    expect(op(doc, "/notes", "delete").description).toContain("Access: roles `admin`.");
    expect(op(doc, "/notes/events", "get").description).toContain("Access: roles `viewer`, `member`, `admin`.");
    // `all` grants the table's actions.
    expect(op(doc, "/notes/{id}/archive", "post").description).toContain("Access: roles `admin`.");
    expect(op(doc, "/plain", "get").description).toContain("Access: no role; the table declares no access rules");
  });

  it("says what the row rules mean for each kind of operation", () => {
    expect(op(doc, "/notes", "get").description).toContain("Each sees only the rows its rules allow.");
    expect(op(doc, "/notes/events", "get").description).toContain(
      "Each is sent the changes of the rows its rules allow",
    );
    for (const [p, m] of [
      ["/notes/{id}", "get"],
      ["/notes/{id}", "patch"],
      ["/notes/{id}/archive", "post"],
    ] as const)
      expect(op(doc, p, m).description).toContain("A row outside the caller's rules is a 404");
    expect(op(doc, "/notes", "post").description).toContain("refused (403) and nothing is stored");
    expect(op(doc, "/notes", "patch").description).toContain("Only the matching rows the caller's rules allow");
  });

  it("names the columns hidden from some of the roles granted the operation", () => {
    expect(op(doc, "/notes", "get").description).toContain("`secret` (hidden from: viewer)");
    expect(op(doc, "/notes/{id}", "get").description).toContain("`secret` (hidden from: viewer)");
    // viewer may not create: nothing it does not see is worth saying there.
    expect(op(doc, "/notes", "post").description).not.toContain("hidden from");
  });

  it("changes nothing else: with the access parts taken out, the document is the one without auth", () => {
    const stripped = JSON.parse(JSON.stringify(doc)) as OpenApiDocument;
    delete stripped.components.securitySchemes;
    delete stripped.components.responses["Unauthorized"];
    delete stripped.components.responses["Forbidden"];
    // The member's stamped org_id is required of nobody, and the create schema says who sends it.
    const create = stripped.components.schemas["NotesCreate"] as JsonSchema;
    const plainCreate = plainDoc.components.schemas["NotesCreate"] as JsonSchema;
    expect(create.required).toEqual(plainCreate.required!.filter((c) => c !== "org_id"));
    expect(create.description).toBe(
      `${plainCreate.description} The service stamps \`org_id\` for the roles whose access rules say so, which leave it out; the other roles send it.`,
    );
    stripped.components.schemas["NotesCreate"] = plainCreate;
    // The viewer's hidden secret is not required of a row, and the row schema says whom it is hidden from.
    const row = stripped.components.schemas["NotesRow"] as JsonSchema;
    const plainRow = plainDoc.components.schemas["NotesRow"] as JsonSchema;
    expect(row.required).toEqual(plainRow.required!.filter((c) => c !== "secret"));
    expect(row.description).toContain("`secret` (hidden from: viewer)");
    stripped.components.schemas["NotesRow"] = plainRow;
    for (const { path: p, method } of operations(stripped)) {
      const o = op(stripped, p, method);
      const before = op(plainDoc, p, method);
      delete o.security;
      delete o.responses["401"];
      delete o.responses["403"];
      if (before.description === undefined) delete o.description;
      else o.description = before.description;
    }
    expect(printOpenApi(stripped)).toBe(printOpenApi(plainDoc));
  });
});

describe("a schema without an auth block", () => {
  it("says nothing about access: no scheme, security, 401 or 403", () => {
    expect(plainDoc.components.securitySchemes).toBeUndefined();
    expect(plainDoc.components.responses["Unauthorized"]).toBeUndefined();
    for (const { op: o } of operations(plainDoc)) {
      expect(o.security).toBeUndefined();
      expect(o.responses["401"]).toBeUndefined();
      expect(o.description ?? "").not.toContain("Access:");
    }
  });
});

describe("the reference application with an auth block", () => {
  const spec = compiled(readFileSync(path.join(ROOT, "spec.resource"), "utf8"), "spec.resource");
  const tasks = [
    accessBlock(["member"], ["reads", "create", "update", "events", "complete"]),
    accessBlock(["admin"], ["all"]),
  ];
  const anonymous = emitOpenApi(
    governed(spec, authBlock({ roles: ["member", "admin", "anon"], anonymous: "anon" }), {
      tasks,
      orgs: [accessBlock(["anon", "member"], ["reads"])],
    }),
  );

  it("is valid OpenAPI 3.1", () => expectValid(anonymous));

  it("reuses the api block's bearer scheme instead of declaring one, unchanged", () => {
    expect(anonymous.components.securitySchemes).toEqual({
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
    });
  });

  it("keeps a resource's own security and states anonymous access as optional", () => {
    for (const { op: o } of operations(anonymous)) expect(o.security).toEqual([{ bearerAuth: [] }, {}]);
  });

  it("says which roles the anonymous caller has", () => {
    expect(op(anonymous, "/orgs", "get").description).toContain(
      "Access: roles `anon`, `member` (`anon` is a caller without a token).",
    );
    expect(op(anonymous, "/tasks", "get").description).toContain(
      "Access: roles `member`, `admin`; a caller without a token (role `anon`) is refused with a 401.",
    );
    expect(op(anonymous, "/tasks/{id}/complete", "post").description).toContain("Access: roles `member`, `admin`;");
    expect(op(anonymous, "/tasks/{id}/reopen", "post").description).toContain("Access: roles `admin`;");
  });
});

describe("an auth block without jwt (a middleware sets the caller)", () => {
  const middleware = emitOpenApi(governed(base, authBlock({ roles: ["member"], jwt: null }), BLOCKS));

  it("declares no scheme and requires none, but still answers 401 and 403", async () => {
    await expectValid(middleware);
    expect(middleware.components.securitySchemes).toBeUndefined();
    for (const { op: o } of operations(middleware)) {
      expect(o.security).toBeUndefined();
      expect(o.responses["401"]).toBeDefined();
      expect(o.responses["403"]).toBeDefined();
    }
  });
});
