/**
 * The OpenAPI document as data: valid OpenAPI 3.1 by a third-party
 * validator, and saying what the descriptor says (operations, parameters,
 * shapes, errors, security, doc comments), for spec.resource, Pagila and a
 * small schema exercising every column type.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import {
  buildDescriptor,
  compileSource,
  emitOpenApi,
  printOpenApi,
  type OpenApiDocument,
} from "../../compiler/index.js";
import type { JsonSchema, Operation, Parameter } from "../../compiler/backends/openapi/types.js";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { operatorsFor } from "../../runtime/query/operators.js";
import { formatDiagnostics } from "../../grammar/index.js";
import { fullDescription, params, schemaOf } from "./deref.js";

/** Every document this file built, to resolve an operation's shared parameters against its own document. */
const knownDocs: OpenApiDocument[] = [];

const ROOT = path.resolve(import.meta.dirname, "../..");

function compile(text: string, file = "test.resource"): { doc: OpenApiDocument; service: ServiceDescriptor } {
  const r = compileSource(text, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, text));
  const doc = emitOpenApi(r.schema);
  knownDocs.push(doc);
  return { doc, service: buildDescriptor(r.schema) };
}

function compileFile(rel: string): { doc: OpenApiDocument; service: ServiceDescriptor } {
  return compile(readFileSync(path.join(ROOT, rel), "utf8"), rel);
}

const spec = compileFile("spec.resource");
const pagila = compileFile("fixtures/pagila/pagila.resource");
const both = [
  ["spec.resource", spec],
  ["Pagila", pagila],
] as const;

type Method = "get" | "post" | "patch" | "delete";

/** Every operation of the document with its method and path. */
function operations(doc: OpenApiDocument): { method: Method; path: string; op: Operation }[] {
  const out: { method: Method; path: string; op: Operation }[] = [];
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of ["get", "post", "patch", "delete"] as const) {
      const op = item[method];
      if (op) out.push({ method, path: p, op });
    }
  }
  return out;
}

function served(service: ServiceDescriptor): TableDescriptor[] {
  return service.tables.filter((t) => t.resource);
}

function docOf(op: Operation): OpenApiDocument {
  const doc = knownDocs.find((d) => Object.values(d.paths).some((item) => Object.values(item).includes(op)));
  if (!doc) throw new Error(`operation ${op.operationId} is in no document of this file`);
  return doc;
}

function param(op: Operation | undefined, name: string): Parameter | undefined {
  return op && params(docOf(op), op.parameters).find((p) => p.name === name);
}

function schema(doc: OpenApiDocument, name: string): JsonSchema {
  const s = doc.components.schemas[name];
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

describe("validity", () => {
  it.each(both)("%s is valid OpenAPI 3.1", async (_, { doc }) => {
    const v = new Validator({ allErrors: true });
    const r = await v.validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
    expect(r.errors ?? []).toEqual([]);
    expect(r.valid).toBe(true);
    expect(v.version).toBe("3.1");
  });

  it("the validator catches a broken document (the check above can fail)", async () => {
    const broken = JSON.parse(JSON.stringify(spec.doc)) as OpenApiDocument;
    (broken.paths["/tasks"].get!.parameters![0] as { in: string }).in = "body";
    const r = await new Validator().validate(broken as unknown as Record<string, unknown>);
    expect(r.valid).toBe(false);
  });

  it("is deterministic and printed as JSON with a final newline", () => {
    const again = compileFile("spec.resource").doc;
    expect(printOpenApi(again)).toBe(printOpenApi(spec.doc));
    expect(printOpenApi(spec.doc).endsWith("}\n")).toBe(true);
    expect(JSON.parse(printOpenApi(spec.doc))).toEqual(spec.doc);
  });
});

describe("info and security (spec: Versioning, Authentication)", () => {
  it("takes title, version, licence and description from the api block", () => {
    expect(spec.doc.openapi).toBe("3.1.0");
    expect(spec.doc.info).toEqual({
      title: "Task Tracker",
      version: "1.4.0",
      license: { name: "MIT", identifier: "MIT" },
      description: expect.stringContaining("POST /auth/login") as unknown as string,
    });
    expect(pagila.doc.info.title).toBe("Pagila");
    expect(pagila.doc.info.version).toBe("1.0.0");
  });

  it("falls back to the file name and 0.0.0 without an api block", () => {
    const { doc } = compile(
      'table t {\n  id integer @primary_key\n  resource "/t" { ops = [list] }\n}\n',
      "dir/shop.resource",
    );
    expect(doc.info).toEqual({ title: "shop", version: "0.0.0" });
  });

  it("declares the scheme once and places it on every operation of a resource that declares security", () => {
    expect(spec.doc.components.securitySchemes).toEqual({
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
    });
    const ops = operations(spec.doc);
    expect(ops.length).toBeGreaterThan(10);
    for (const { op } of ops) expect(op.security).toEqual([{ bearerAuth: [] }]);
  });

  it("puts no security where the schema declares none", () => {
    expect(pagila.doc.components.securitySchemes).toBeUndefined();
    for (const { op } of operations(pagila.doc)) expect(op.security).toBeUndefined();
    const { doc } = compile(
      'api {\n  security key { scheme = "bearer" }\n}\ntable a {\n  id integer @primary_key\n  resource "/a" { ops = [list] security = [key] }\n}\ntable b {\n  id integer @primary_key\n  resource "/b" { ops = [list] }\n}\n',
    );
    expect(doc.components.securitySchemes).toEqual({ key: { type: "http", scheme: "bearer" } });
    expect(doc.paths["/a"].get?.security).toEqual([{ key: [] }]);
    expect(doc.paths["/b"].get?.security).toBeUndefined();
  });
});

describe("operations (spec: Generated operations)", () => {
  it.each(both)("%s: one operation per exposed operation and nothing else", (_, { doc, service }) => {
    const expected: string[] = [];
    for (const t of served(service)) {
      const { path: p, ops } = t.resource!;
      // A composite key is one path parameter per key column (docs/decisions/1376-composite-key-address.md).
      const item = t.primaryKey.length > 1 ? t.primaryKey.map((k) => `/{${k}}`).join("") : "/{id}";
      if (ops.list) expected.push(`get ${p}`);
      if (ops.create) expected.push(`post ${p}`);
      if (ops.read) expected.push(`get ${p}${item}`);
      if (ops.update) expected.push(`patch ${p}${item}`);
      if (ops.delete) expected.push(`delete ${p}${item}`);
      // Filtered writes on the collection (docs/decisions/1333-filtered-writes.md).
      if (t.resource!.filteredWrites && ops.update) expected.push(`patch ${p}`);
      if (t.resource!.filteredWrites && ops.delete) expected.push(`delete ${p}`);
      // Declared actions, one POST each (docs/decisions/1334-declared-actions.md).
      for (const a of t.resource!.actions ?? [])
        expected.push(`post ${p}${a.target === "item" ? "/{id}" : ""}/${a.name}`);
      // The change feed (docs/decisions/1337-change-feed.md).
      if (t.resource!.events) expected.push(`get ${p}/events`);
    }
    const actual = operations(doc).map((o) => `${o.method} ${o.path}`);
    expect(actual.sort()).toEqual(expected.sort());
    const ids = operations(doc).map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("documents success statuses, Location and ETag on 201 and 204 on delete", () => {
    const create = spec.doc.paths["/tasks"].post!;
    const created = create.responses["201"];
    expect(created && "headers" in created ? Object.keys(created.headers ?? {}) : []).toEqual([
      "Location",
      "ETag",
      "Idempotent-Replayed",
    ]);
    // One row, or an array of rows created together (docs/decisions/1330-bulk-create.md).
    expect(create.requestBody).toEqual({
      required: true,
      content: {
        "application/json": {
          schema: {
            oneOf: [
              { $ref: "#/components/schemas/TasksCreate" },
              { type: "array", items: { $ref: "#/components/schemas/TasksCreate" }, minItems: 1, maxItems: 1000 },
            ],
          },
        },
      },
    });
    const del = spec.doc.paths["/tasks/{id}"].delete!;
    expect(del.responses["204"]).toEqual({ description: "Deleted." });
    // tasks has a soft-delete column: DELETE marks the row (runtime/http/write.ts).
    expect(del.description).toMatch(/^Marks the row as removed/);
    // The access paragraph follows (spec.resource's access blocks; docs/decisions/1367-access-rules.md).
    expect(spec.doc.paths["/lists/{id}"].delete!.description!.split("\n\n")[0]).toBe("Deletes the row.");
    expect(spec.doc.paths["/tasks/{id}"].patch!.responses["200"]).toBeDefined();
    expect(spec.doc.paths["/tasks"].get!.responses["200"]).toBeDefined();
  });

  it("describes filtered PATCH and DELETE on the collection only where the resource opts in", () => {
    const { doc } = compile(
      'table t {\n  id bigint @primary_key @default(identity)\n  team text @filterable\n  resource "/t" { ops = [crud, list], filtered_writes = true }\n}\n' +
        'table u {\n  id bigint @primary_key @default(identity)\n  team text @filterable\n  resource "/u" { ops = [crud, list] }\n}\n',
    );
    const patch = doc.paths["/t"].patch!;
    expect(patch.operationId).toBe("updateWhereT");
    const names = params(doc, patch.parameters).map((p) => p.name);
    expect(names).toEqual(["team", "or", "and", "not", "filter", "Prefer"]);
    expect(doc.paths["/t"].delete!.operationId).toBe("deleteWhereT");
    expect(doc.paths["/u"].patch).toBeUndefined();
    expect(doc.paths["/u"].delete).toBeUndefined();
  });

  it("has no Location header on a composite-key create without a read, only its ETag, and no item path", () => {
    const { doc } = compile(
      'table link {\n  a integer @sortable\n  b integer\n  @@primary_key([a, b])\n  resource "/links" { ops = [list, create] }\n}\n',
    );
    const created = doc.paths["/links"].post!.responses["201"];
    expect(created && "content" in created).toBe(true);
    expect(created && "headers" in created ? Object.keys(created.headers ?? {}) : []).toEqual([
      "ETag",
      "Idempotent-Replayed",
    ]);
    expect(Object.keys(doc.paths)).toEqual(["/links"]);
    // With a read, the Location of the new row names its path (decision 1376).
    const { doc: served } = compile(
      'table link {\n  a integer @sortable\n  b integer\n  @@primary_key([a, b])\n  resource "/links" { ops = [list, create, read] }\n}\n',
    );
    const withRead = served.paths["/links"].post!.responses["201"];
    expect(withRead && "headers" in withRead ? Object.keys(withRead.headers ?? {}) : []).toContain("Location");
    expect(Object.keys(served.paths)).toEqual(["/links", "/links/{a}/{b}"]);
  });

  it.each(both)(
    "%s: every 4xx and 5xx is a problem document, and each operation lists the ones it can give",
    (_, { doc }) => {
      const problem = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };
      for (const r of Object.values(doc.components.responses)) expect("content" in r && r.content).toEqual(problem);
      for (const { method, path: p, op } of operations(doc)) {
        const codes = Object.keys(op.responses);
        for (const c of codes.filter((c) => Number(c) >= 400)) {
          expect(op.responses[c], `${method} ${p} ${c}`).toHaveProperty("$ref");
        }
        const errors = codes.filter((c) => Number(c) >= 400);
        // An item action is a POST on /{id}/<name> (docs/decisions/1334-declared-actions.md).
        const itemAction = method === "post" && p.includes("/{id}/");
        const item = p.endsWith("}") || itemAction;
        const want = ["400", ...(item ? ["404"] : []), "500", "503", "504"];
        if (method === "post" || method === "patch") want.push("409", "413", "415", "422");
        if (method === "delete") want.push("409");
        // If-Match: a write of one row may find it at another version (docs/decisions/1329-conditional-requests.md).
        if (item && (method === "patch" || method === "delete" || itemAction)) want.push("412");
        // Under an auth block every operation may be refused its caller (docs/decisions/1367-access-rules.md).
        if (doc.components.responses["Unauthorized"]) want.push("401", "403");
        expect(errors.sort(), `${method} ${p}`).toEqual(want.sort());
      }
      expect(Object.keys(schema(doc, "Problem").properties ?? {})).toEqual([
        "type",
        "title",
        "status",
        "detail",
        "errors",
      ]);
    },
  );
});

describe("list parameters (spec: Query grammar, Column capabilities)", () => {
  it.each(both)(
    "%s: one filter parameter per filterable column, listing the operators of its type",
    (_, { doc, service }) => {
      for (const t of served(service).filter((t) => t.resource!.ops.list)) {
        const op = doc.paths[t.resource!.path].get!;
        const visible = t.columns.filter(
          (c) => !c.hidden && (c.computed === undefined || t.resource!.computed.includes(c.name)),
        );
        for (const col of visible) {
          const p = param(op, col.name);
          if (!col.filterable) {
            expect(p, `${t.name}.${col.name}`).toBeUndefined();
            continue;
          }
          expect(p, `${t.name}.${col.name}`).toBeDefined();
          const listed = /Operators: ([^\n]*)\./.exec(fullDescription(doc, p!))?.[1];
          expect(listed).toBe(
            operatorsFor(col)
              .map((o) => `\`${o}\``)
              .join(", "),
          );
          if (col.enumValues)
            expect(p!.description).toContain(`Values: ${col.enumValues.map((v) => `\`${v}\``).join(", ")}.`);
          expect(schemaOf(doc, p!.schema)).toMatchObject({ type: "array", items: { type: "string" } });
          expect([p!.style, p!.explode]).toEqual([undefined, undefined]);
        }
      }
    },
  );

  it("names the enum values and the operators of the spec's examples", () => {
    const op = spec.doc.paths["/tasks"].get!;
    expect(param(op, "status")!.description).toContain("Values: `todo`, `doing`, `blocked`, `done`.");
    expect(fullDescription(spec.doc, param(op, "labels")!)).toContain(
      "Operators: `eq`, `has`, `hasall`, `hasany`, `ne`, `neq`, `nhas`, `nhasall`, `nhasany`.",
    );
    expect(fullDescription(spec.doc, param(op, "attrs")!)).toContain(
      "Operators: `hasdoc`, `isnull`, `nhasdoc`, `notnull`.",
    );
  });

  it.each(both)(
    "%s: sort, select and expand admit every form the service reads, repeated or comma-separated, and list their terms",
    (_, { doc, service }) => {
      for (const t of served(service).filter((t) => t.resource!.ops.list)) {
        const op = doc.paths[t.resource!.path].get!;
        const visible = t.columns.filter(
          (c) => !c.hidden && (c.computed === undefined || t.resource!.computed.includes(c.name)),
        );
        const sortable = visible.filter((c) => c.sortable).map((c) => c.name);
        const sort = param(op, "sort");
        if (sortable.length === 0) expect(sort).toBeUndefined();
        else {
          // Every form on the first column, then each column once (decision 1320).
          expect(sort!.schema!.items!.examples).toEqual([
            sortable[0],
            `-${sortable[0]}`,
            `${sortable[0]}.desc`,
            ...sortable.slice(1),
          ]);
          expect(sort!.schema!.maxItems).toBe(t.resource!.limits.maxSortTerms);
          // OpenAPI's defaults for a query parameter, left unsaid (decision 1320).
          expect([sort!.style, sort!.explode]).toEqual([undefined, undefined]);
          const pattern = new RegExp(sort!.schema!.items!.pattern!);
          const [a, b] = [sortable[0], sortable[sortable.length - 1]];
          for (const ok of [a, `-${a}`, `${a}.asc`, `${a}.desc`, `${a},-${b}`, ` ${a} , ${b}.desc`])
            expect(pattern.test(ok), ok).toBe(true);
          // The pattern names each column once, so it is a little wider than the service (decision 1320):
          // `-a.desc` and a trailing comma pass it and are refused with 400; nothing the service reads fails it.
          for (const bad of [`${a}.up`, "nope", `${a};${b}`, `${a} ${b}`, `,${a}`])
            expect(pattern.test(bad), bad).toBe(false);
        }
        const select = param(op, "select")!;
        expect(select.schema!.items!.examples).toEqual(visible.map((c) => c.name));
        expect(new RegExp(select.schema!.items!.pattern!).test(visible.map((c) => c.name).join(","))).toBe(true);
        const expandable = t.relations.filter((r) => r.expandable).map((r) => r.name);
        const expand = param(op, "expand");
        const itemPath = t.primaryKey.length > 1 ? t.primaryKey.map((k) => `/{${k}}`).join("") : "/{id}";
        const readExpand = param(doc.paths[`${t.resource!.path}${itemPath}`]?.get, "expand");
        if (expandable.length === 0) {
          expect(expand).toBeUndefined();
          expect(readExpand).toBeUndefined();
        } else {
          expect(expand!.schema!.items!.examples).toEqual(expandable);
          if (t.resource!.ops.read) expect(readExpand).toEqual(expand);
        }
        const searchable = visible.some((c) => c.searchable);
        expect(param(op, "search") !== undefined).toBe(searchable);
        const filterable = visible.some((c) => c.filterable);
        for (const g of ["or", "and", "not", "filter"])
          expect(param(op, g) !== undefined, `${t.name} ${g}`).toBe(filterable);
        for (const p of ["select", "page", "per_page", "offset", "cursor", "count"])
          expect(param(op, p), p).toBeDefined();
        expect(param(op, "count")!.schema).toEqual({ type: "string", enum: ["exact"] });
        expect(param(op, "offset")!.schema!.maximum).toBe(t.resource!.limits.maxOffset);
      }
    },
  );

  it("describes the filter tree as a string whose content is JSON of the tree schema", () => {
    const f = param(spec.doc.paths["/tasks"].get, "filter")!;
    expect(f.content).toBeUndefined();
    // No contentMediaType: Swagger UI would offer a file upload (docs/decisions/1255-filter-parameter-text.md).
    expect(f.schema).toEqual({ type: "string", contentSchema: { $ref: "#/components/schemas/TasksFilter" } });
    expect(typeof f.example).toBe("string");
    const tree = schema(spec.doc, "TasksFilter");
    expect(tree.oneOf?.[0].properties?.field.enum).toEqual([
      "list_id",
      "assignee_id",
      "title",
      "status",
      "priority",
      "labels",
      "attrs",
      "estimate",
      "due_on",
    ]);
    expect(tree.oneOf?.[1].properties?.children.items).toEqual({ $ref: "#/components/schemas/TasksFilter" });
  });

  it("gives a read the list's select, expand where there is something to expand, and If-None-Match", () => {
    expect(param(spec.doc.paths["/tasks/{id}"].get, "expand")).toBeDefined();
    for (const { path: p, method, op } of operations(spec.doc)) {
      if (method === "get" && p.endsWith("{id}")) {
        expect(
          params(spec.doc, op.parameters)
            .map((x) => x.name)
            .filter((n) => n !== "expand"),
          p,
        ).toEqual(["select", "If-None-Match"]);
        const collection = spec.doc.paths[p.replace(/\/\{id\}$/, "")]?.get;
        if (collection) expect(param(op, "select"), p).toEqual(param(collection, "select"));
      }
    }
    expect(params(spec.doc, spec.doc.paths["/orgs/{id}"].get!.parameters).map((x) => x.name)).toEqual([
      "select",
      "If-None-Match",
    ]);
  });
});

describe("shapes (spec: Resources and their fields, List response shape, Expanded relation shapes)", () => {
  it("never names a hidden column, nor carries its doc comment", () => {
    const hidden = new Set(spec.service.tables.flatMap((t) => t.columns.filter((c) => c.hidden).map((c) => c.name)));
    expect([...hidden].sort()).toEqual(["avatar", "deleted_at", "password_hash"]);
    const names: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === "object") {
        for (const [k, x] of Object.entries(v)) {
          if (k === "properties" && x && typeof x === "object") names.push(...Object.keys(x));
          if (k === "name" && typeof x === "string") names.push(x);
          if ((k === "enum" || k === "required") && Array.isArray(x)) names.push(...x.map(String));
          walk(x);
        }
      }
    };
    walk(spec.doc);
    expect(names.length).toBeGreaterThan(100);
    expect(names.filter((n) => hidden.has(n))).toEqual([]);
    const text = JSON.stringify(spec.doc);
    expect(text).not.toContain("password_hash");
    expect(text).not.toContain("avatar");
    expect(text).not.toContain("Never served");
    expect(text).not.toContain("Profile picture");
  });

  it("omits read-only columns from create and immutable ones from update; requires what has no default", () => {
    const create = schema(spec.doc, "TasksCreate");
    expect(Object.keys(create.properties ?? {})).toEqual([
      "id",
      "list_id",
      "assignee_id",
      "title",
      "status",
      "priority",
      "position",
      "labels",
      "attrs",
      "estimate",
      "due_on",
    ]);
    expect(create.required).toEqual(["list_id", "title", "labels"]);
    expect(create.additionalProperties).toBe(false);
    // author_id is read-only: stamped by a hook, never sent.
    expect(Object.keys(schema(spec.doc, "CommentsCreate").properties ?? {})).toEqual(["id", "task_id", "body"]);
    const usersUpdate = schema(spec.doc, "UsersUpdate");
    expect(Object.keys(usersUpdate.properties ?? {})).toEqual(["email", "name"]);
    expect(usersUpdate.required).toBeUndefined();
    expect(usersUpdate.minProperties).toBe(1);
    expect(spec.doc.components.schemas.UsersCreate).toBeUndefined();
    expect(spec.doc.components.schemas.CommentsUpdate).toBeUndefined();
    const tasksUpdate = schema(spec.doc, "TasksUpdate");
    // created_at is read-only and immutable; the key is immutable (docs/decisions/0004-keys-are-immutable.md).
    expect(Object.keys(tasksUpdate.properties ?? {})).toEqual(
      Object.keys(create.properties ?? {}).filter((k) => k !== "id"),
    );
  });

  it("describes the list page, its items and the row", () => {
    // The items are the table's, the paging fields the shared Page schema's (decision 1320).
    const [own, page] = schema(spec.doc, "TasksList").allOf ?? [];
    expect(Object.keys(own.properties ?? {})).toEqual(["items"]);
    expect(own.required).toEqual(["items"]);
    const shared = schemaOf(spec.doc, page)!;
    expect(Object.keys(shared.properties ?? {})).toEqual(["page", "per_page", "has_more", "next_cursor", "total"]);
    expect(shared.required).toEqual(["per_page", "has_more"]);
    expect(shared.properties?.per_page.maximum).toBe(100);
    const [columns, expansions] = schema(spec.doc, "TasksListItem").allOf ?? [];
    expect(columns.required).toEqual(["id"]);
    expect(Object.keys(columns.properties ?? {})).toEqual(expect.arrayContaining(["summary"]));
    expect(expansions).toEqual({ $ref: "#/components/schemas/TasksExpansions" });
    const row = schema(spec.doc, "TasksRow");
    expect(row.required).toEqual(Object.keys(row.properties ?? {}));
    expect(row.description).toBe("A unit of work.");
  });

  it("describes forward expansions as the target row or null, inverse ones as {items, has_more}", () => {
    const x = schema(spec.doc, "TasksExpansions").properties ?? {};
    expect(x.list.anyOf).toEqual([{ $ref: "#/components/schemas/ListsRow" }, { type: "null" }]);
    expect(x.comments.properties?.items).toEqual({
      type: "array",
      items: { $ref: "#/components/schemas/CommentsRow" },
      maxItems: 5,
    });
    expect(x.comments.required).toEqual(["items", "has_more"]);
    const read = spec.doc.paths["/tasks/{id}"].get!.responses["200"];
    // The whole row with its expansions, or (with ?select) a list item's shape, only the key required.
    expect(read && "content" in read ? read.content?.["application/json"].schema : undefined).toEqual({
      anyOf: [
        { allOf: [{ $ref: "#/components/schemas/TasksRow" }, { $ref: "#/components/schemas/TasksExpansions" }] },
        { $ref: "#/components/schemas/TasksListItem" },
      ],
    });
    // Pagila: film's films inverse keeps its declared limit; an unserved target still gets its row schema.
    expect(schema(pagila.doc, "LanguageExpansions").properties?.films.properties?.items.maxItems).toBe(10);
  });

  it("lets doc comments flow into descriptions", () => {
    expect(schema(spec.doc, "TasksRow").properties?.estimate.description).toBe("Estimated effort in hours.");
    expect(spec.doc.tags.find((t) => t.name === "comments")?.description).toContain("Every ceiling is set here");
    expect(param(spec.doc.paths["/orgs"].get, "country")!.description).toMatch(/^ISO 3166-1 alpha-2/);
  });

  it("gives each column type its JSON form (docs/http.md)", () => {
    const { doc } = compile(
      [
        "enum mood { happy sad }",
        "table t {",
        "  id bigint @primary_key",
        "  n numeric(6,2)?",
        "  d date",
        "  ts timestamptz",
        "  lt timestamp",
        "  tm time",
        "  i integer",
        "  s smallint",
        "  r real",
        "  f double precision",
        "  b boolean",
        "  u uuid",
        "  j jsonb",
        "  raw json",
        "  by bytea",
        "  tags text[]",
        "  m mood?",
        "  ip inet",
        '  resource "/t" { ops = [crud, list] }',
        "}",
        "",
      ].join("\n"),
    );
    // Long value schemas are shared under components (decision 1320): read each property through its $ref.
    const props = (name: string): Record<string, JsonSchema> =>
      Object.fromEntries(
        Object.entries(schema(doc, name).properties ?? {}).map(([k, v]) => [k, schemaOf(doc, v) ?? v]),
      );
    const row = props("TRow");
    expect(row.id).toEqual({ type: "integer", format: "int64" });
    expect(row.n).toEqual({ type: ["string", "null"], format: "decimal" });
    expect(row.d).toMatchObject({ type: "string", format: "date-time" });
    expect(row.ts).toEqual({ type: "string", format: "date-time" });
    expect(row.lt.format).toBeUndefined();
    expect(row.tm.pattern).toBeDefined();
    expect(row.i).toEqual({ type: "integer", format: "int32" });
    expect(row.s).toEqual({ type: "integer", format: "int32", minimum: -32768, maximum: 32767 });
    expect(row.r.anyOf?.[0]).toEqual({ type: "number", format: "float" });
    expect(row.f.anyOf?.[0]).toEqual({ type: "number", format: "double" });
    expect(row.b).toEqual({ type: "boolean" });
    expect(row.u).toEqual({ type: "string", format: "uuid" });
    expect(row.j).toEqual({});
    expect(row.raw).toEqual({});
    expect(row.by).toEqual({ type: "string", contentEncoding: "base64" });
    expect(row.tags).toEqual({ type: "array", items: { type: "string" } });
    expect(row.m).toEqual({ type: ["string", "null"], enum: ["happy", "sad", null] });
    expect(row.ip).toEqual({ type: "string" });
    const body = props("TCreate");
    expect(body.n).toEqual({ type: ["string", "number", "null"], format: "decimal" });
    expect(body.d).toEqual({ type: "string", format: "date" });
    expect(body.id.anyOf?.[1]).toEqual({ type: "string", pattern: "^[+-]?\\d+$" });
    expect(body.f).toEqual({ type: "number", format: "double" });
    const key = doc.paths["/t/{id}"].parameters?.[0];
    expect(key).toMatchObject({ name: "id", in: "path", required: true, schema: { type: "integer", format: "int64" } });
  });
});

describe("doc comments in descriptions (docs/decisions/1012-doc-comments-are-text.md)", () => {
  it("keep angle brackets as text outside code spans, so a page shows them", async () => {
    const { docText } = await import("../../compiler/backends/openapi/markdown.js");
    expect(docText('send "Authorization: Bearer <token>" & wait')).toBe(
      'send "Authorization: Bearer &lt;token&gt;" &amp; wait',
    );
    expect(docText("send `Bearer <token>` or <b>")).toBe("send `Bearer <token>` or &lt;b&gt;");
    expect(spec.doc.info.description).toContain("Bearer &lt;token&gt;");
    expect(spec.doc.info.description).not.toContain("<token>");
  });

  it("write the api block's licence, a server and an empty default security requirement", () => {
    expect(spec.doc.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(spec.doc.servers).toEqual([{ url: "/", description: "The server that serves this document." }]);
    expect(spec.doc.security).toEqual([]);
  });
});
