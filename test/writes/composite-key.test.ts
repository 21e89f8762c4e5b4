/**
 * Rows of a composite primary key addressed by one path segment per key
 * column (docs/decisions/1376-composite-key-address.md), on PostgreSQL and
 * the embedded database: read, PATCH, DELETE, If-Match, the 404 of a
 * missing or unreachable row (access rules, docs/access.md), the 400 naming
 * the malformed path parameter, text keys carrying `/` and spaces, and the
 * same rows through the typed client and the command tree, which are
 * generated from the schema and sent to the service in process; a key
 * served by a unique index (`@@primary_key([a, b], index: …)`) alike. The
 * OpenAPI document's paths name each key column as a typed parameter.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Hono, type MiddlewareHandler } from "hono";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { emitClient, emitOpenApi, resourceSpecs } from "../../compiler/index.js";
import { HttpClient, type PreparedRequest, type RawResponse } from "../../compiler/backends/client/core/http.js";
import { createCommandTree } from "../../compiler/backends/cli-tree/core/cli.js";
import { setPrincipal, type Principal } from "../../runtime/auth/principal.js";
import type { ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { mountService } from "../../runtime/http/mount.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, sendTo } from "../support/service.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";

const SCHEMA = `
table film_actor {
  film_id integer @map("FilmId") @filterable
  role    text    @map("Role Name")
  note    text?
  org     text
  @@primary_key([film_id, role])
  @@map("Film Actor")
  resource "/film-actors" { ops = [crud, list] }
}
table post_tag {
  a integer @map("A")
  b integer @map("B")
  @@primary_key([a, b], index: "_PostToTag_AB_unique")
  @@map("_PostToTag")
  resource "/post-tags" { ops = [crud, list] }
}
table tagging {
  item   uuid
  tag    text
  weight integer @default(1)
  @@primary_key([item, tag])
  resource "/taggings" { ops = [crud, list] }
}
`;

const ITEM = "6f1c2a7e-0b7d-4c1e-9a53-2f0d8f5b9e11";

/** Member: every operation on the rows of its own org (a row rule); the tagging table is open to it. */
function governed(service: ServiceDescriptor): ServiceDescriptor {
  return {
    ...service,
    auth: {
      roles: ["member"],
      roleClaim: ["role"],
      claims: [{ name: "org", path: ["org"], kind: "text", array: false, sqlType: "text", nullable: false }],
    },
    tables: service.tables.map((t): TableDescriptor => ({
      ...t,
      access: [
        {
          roles: ["member"],
          ops: ["list", "read", "create", "update", "delete"],
          rows:
            t.name === "film_actor"
              ? [{ rule: { kind: "cmp", column: "org", op: "eq", value: { claim: "org" } } }]
              : [],
          stamps: [],
          hide: [],
        },
      ],
    })),
  };
}

const member = (org: string): Principal => ({ subject: `m-${org}`, roles: ["member"], claims: { org } });

/** The test's stand-in for a session scheme: the principal travels in a header. */
const fromHeader: MiddlewareHandler = async (c, next) => {
  const p = c.req.header("x-principal");
  if (p) setPrincipal(c, JSON.parse(p) as Principal);
  await next();
};

const compiled = compileText(SCHEMA, "composite-key.resource");
const ROOT = path.resolve(import.meta.dirname, "../..");

describe("the OpenAPI document (decision 1376)", () => {
  const doc = emitOpenApi(compiled.schema) as unknown as {
    paths: Record<
      string,
      { parameters?: { name: string; in: string; required: boolean; schema: unknown }[] } & Record<string, unknown>
    >;
  };

  it("serves each composite key at one typed path parameter per key column, in key order", () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/film-actors", "/film-actors/{film_id}/{role}", "/taggings", "/taggings/{item}/{tag}"]),
    );
    expect(Object.keys(doc.paths).some((p) => p.endsWith("/{id}"))).toBe(false);
    const films = doc.paths["/film-actors/{film_id}/{role}"];
    expect(films.parameters?.map((p) => [p.name, p.in, p.required, p.schema])).toEqual([
      ["film_id", "path", true, { type: "integer", format: "int32" }],
      ["role", "path", true, { type: "string" }],
    ]);
    expect(
      Object.keys(films)
        .filter((k) => k !== "parameters")
        .sort(),
    ).toEqual(["delete", "get", "patch"]);
    const tags = doc.paths["/taggings/{item}/{tag}"];
    expect(tags.parameters?.map((p) => [p.name, p.schema])).toEqual([
      ["item", { type: "string", format: "uuid" }],
      ["tag", { type: "string" }],
    ]);
  });
});

const kinds = await databaseKinds();

describe.each(kinds)("composite keys on %s", (kind) => {
  let db: TestDatabase;
  let app: Hono;
  const as = (org: string) => ({ "x-principal": JSON.stringify(member(org)) });
  const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}, org = "a") =>
    sendTo<any>(app, method, url, body, { ...as(org), ...headers });

  /** A transport that hands each request to the in-process app, as the principal of org `a`. */
  const transport = async (r: PreparedRequest): Promise<RawResponse> => {
    const init: RequestInit = { method: r.method, headers: { ...r.headers, ...as("a") } };
    if (r.body !== undefined) init.body = r.body;
    const res = await app.request(r.url, init);
    const etag = res.headers.get("etag");
    return { status: res.status, body: await res.text(), ...(etag ? { etag } : {}) };
  };

  beforeAll(async () => {
    db = await freshDatabase(kind, "composite-key");
    await db.executor.script(compiled.ddl);
    await db.executor.script(`
      INSERT INTO "Film Actor" ("FilmId", "Role Name", note, org) VALUES
        (1, 'lead', 'n1', 'a'), (1, 'lead role', NULL, 'a'), (1, 'a/b', NULL, 'a'), (2, 'lead', 'other org', 'b');
      INSERT INTO tagging (item, tag) VALUES ('${ITEM}', 'red'), ('${ITEM}', 'blue');
    `);
    app = new Hono();
    app.use(fromHeader);
    const mounted = mountService(app, governed(compiled.service), { db: db.executor });
    if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  });
  afterAll(async () => db?.drop());

  it("reads a row by (integer, text), each segment percent-decoded alone: a space, a slash", async () => {
    const r = await send("GET", "/film-actors/1/lead");
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ film_id: 1, role: "lead", note: "n1", org: "a" });
    expect(r.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await send("GET", "/film-actors/1/lead%20role")).body.role).toBe("lead role");
    expect((await send("GET", "/film-actors/1/a%2Fb")).body.role).toBe("a/b");
    // A matching If-None-Match is a 304, as for a single key.
    const again = await send("GET", "/film-actors/1/lead", undefined, { "if-none-match": r.headers.get("etag")! });
    expect(again.status).toBe(304);
  });

  it("reads by (uuid, text)", async () => {
    const r = await send("GET", `/taggings/${ITEM}/red`);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ item: ITEM, tag: "red", weight: 1 });
  });

  it("a missing key, or a row the caller's row rule does not reach, is the 404 at path", async () => {
    for (const url of [
      "/film-actors/1/nobody",
      "/film-actors/9/lead",
      `/taggings/${ITEM}/green`,
      "/film-actors/2/lead",
    ]) {
      const r = await send("GET", url);
      expect(r.status, url).toBe(404);
      expect(r.body.errors).toEqual([{ location: "path", detail: "no such row" }]);
    }
    // Out of reach for org a, in reach for org b: the same route, the rule decides.
    expect((await send("GET", "/film-actors/2/lead", undefined, {}, "b")).status).toBe(200);
    expect((await send("PATCH", "/film-actors/2/lead", { note: "x" })).status).toBe(404);
    expect((await send("DELETE", "/film-actors/2/lead")).status).toBe(404);
    const kept = await db.executor.query({ text: `SELECT note FROM "Film Actor" WHERE "FilmId" = 2`, values: [] });
    expect(kept.rows).toEqual([{ note: "other org" }]);
  });

  it("a malformed segment is a 400 naming its path parameter, one problem per bad segment", async () => {
    const r = await send("GET", "/film-actors/abc/lead");
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { location: string }) => e.location)).toEqual(["path.film_id"]);
    const u = await send("DELETE", "/taggings/not-a-uuid/red");
    expect(u.status).toBe(400);
    expect(u.body.errors.map((e: { location: string; value: string }) => [e.location, e.value])).toEqual([
      ["path.item", "not-a-uuid"],
    ]);
    const both = await send("PATCH", "/film-actors/x/" + "é".repeat(200), { note: "n" });
    expect(both.status).toBe(400);
    expect(both.body.errors.map((e: { location: string }) => e.location)).toEqual(["path.film_id", "path.role"]);
    // One segment is not an item route of a two-column key.
    expect((await send("GET", "/film-actors/1")).status).toBe(404);
  });

  it("creates with a Location of one segment per key column, then PATCH and DELETE with If-Match", async () => {
    const created = await send("POST", "/film-actors", { film_id: 5, role: "a b/c", org: "a" });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("location")).toBe("/film-actors/5/a%20b%2Fc");
    const at = created.headers.get("location")!;
    const tag = created.headers.get("etag")!;
    const changed = await send("PATCH", at, { note: "first" }, { "if-match": tag });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toEqual({ film_id: 5, role: "a b/c", note: "first", org: "a" });
    const next = changed.headers.get("etag")!;
    expect(next).not.toBe(tag);
    // The old tag no longer matches: 412, nothing written.
    const stale = await send("PATCH", at, { note: "second" }, { "if-match": tag });
    expect(stale.status).toBe(412);
    expect((await send("GET", at)).body.note).toBe("first");
    expect((await send("DELETE", at, undefined, { "if-match": tag })).status).toBe(412);
    // A key column is immutable, as a single key is: its address does not move.
    const moved = await send("PATCH", at, { role: "moved" }, { "if-match": next });
    expect(moved.status).toBe(400);
    expect(moved.body.errors.map((e: { location: string }) => e.location)).toEqual(["body.role"]);
    const gone = await send("DELETE", at, undefined, { "if-match": next });
    expect(gone.status).toBe(204);
    expect((await send("GET", at)).status).toBe(404);
    expect((await send("DELETE", at)).status).toBe(404);
    // With a tag, a row that is not there is still a 404, not a 412.
    expect((await send("DELETE", at, undefined, { "if-match": next })).status).toBe(404);
  });

  it("updates and deletes by (uuid, text), touching only the addressed row", async () => {
    const r = await send("PATCH", `/taggings/${ITEM}/blue`, { weight: 7 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ item: ITEM, tag: "blue", weight: 7 });
    expect((await send("GET", `/taggings/${ITEM}/red`)).body.weight).toBe(1);
    expect((await send("DELETE", `/taggings/${ITEM}/blue`)).status).toBe(204);
    const rows = await db.executor.query({ text: "SELECT tag FROM tagging ORDER BY tag", values: [] });
    expect(rows.rows).toEqual([{ tag: "red" }]);
  });

  it("a key served by a unique index (Prisma's many-to-many table) is addressed alike, and is no PRIMARY KEY", async () => {
    const constraints = await db.executor.query({
      text: `SELECT contype FROM pg_constraint WHERE conrelid = '"_PostToTag"'::regclass`,
      values: [],
    });
    expect(constraints.rows).toEqual([]);
    expect((await send("POST", "/post-tags", { a: 1, b: 2 })).status).toBe(201);
    const twice = await send("POST", "/post-tags", { a: 1, b: 2 });
    expect(twice.status).toBe(409);
    const r = await send("GET", "/post-tags/1/2");
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ a: 1, b: 2 });
    expect((await send("DELETE", "/post-tags/1/2", undefined, { "if-match": r.headers.get("etag")! })).status).toBe(
      204,
    );
    expect((await send("GET", "/post-tags/1/2")).status).toBe(404);
  });

  it("the typed client takes the key as an object of its columns", async () => {
    const dir = mkdtempSync(path.join(ROOT, "test", ".composite-client-"));
    try {
      for (const f of await emitClient(compiled.schema, "client", compiled.service)) {
        mkdirSync(path.join(dir, path.dirname(f.path)), { recursive: true });
        writeFileSync(path.join(dir, f.path), f.contents);
      }
      const mod = await import(path.join(dir, "client", "index.ts"));
      const client = new mod.Client({ baseURL: "http://composite.test", transport });
      const created = await client.filmActors.create({ film_id: 7, role: "x/y z", org: "a" });
      expect(created).toEqual({ film_id: 7, role: "x/y z", note: null, org: "a" });
      const key = { film_id: 7, role: "x/y z" };
      expect(await client.filmActors.get(key)).toEqual(created);
      const updated = await client.filmActors.update(key, { note: "via client" });
      expect(updated.note).toBe("via client");
      await expect(client.filmActors.update(key, { note: "stale" }, { ifMatch: '"0"' })).rejects.toMatchObject({
        status: 412,
      });
      await client.filmActors.delete(key);
      await expect(client.filmActors.get(key)).rejects.toMatchObject({ status: 404 });
      expect(await client.taggings.get({ item: ITEM, tag: "red" })).toEqual({ item: ITEM, tag: "red", weight: 1 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the command tree takes one argument per key column, in key order", async () => {
    const client = new HttpClient({ baseURL: "http://composite.test", transport });
    const tree = createCommandTree(
      { bin: "films", envPrefix: "FILMS", version: "1.0.0" },
      resourceSpecs(compiled.service),
      {
        client,
        env: {},
      },
    );
    expect(tree.commands["film-actors:get"].summary).toBe(
      "Read one of film-actors (GET /film-actors/{film_id}/{role}).",
    );
    expect(Object.keys(tree.commands["film-actors:get"].args ?? {})).toEqual(["film_id", "role"]);
    const run = async (argv: string[]): Promise<string> => {
      const printed: string[] = [];
      const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => (printed.push(String(chunk)), true));
      try {
        await tree.run(argv);
      } finally {
        out.mockRestore();
      }
      return printed.join("");
    };
    await run(["film-actors", "create", "--film-id", "8", "--role", "c/d", "--org", "a", "--compact"]);
    expect(await run(["film-actors", "get", "8", "c/d", "--compact"])).toBe(
      '{"film_id":8,"role":"c/d","note":null,"org":"a"}\n',
    );
    expect(await run(["film-actors", "update", "8", "c/d", "--note", "cli", "--compact"])).toBe(
      '{"film_id":8,"role":"c/d","note":"cli","org":"a"}\n',
    );
    await run(["film-actors", "delete", "8", "c/d"]);
    expect((await send("GET", "/film-actors/8/c%2Fd")).status).toBe(404);
    expect(await run(["taggings", "get", ITEM, "red", "--compact"])).toBe(
      `{"item":"${ITEM}","tag":"red","weight":1}\n`,
    );
  });
});
