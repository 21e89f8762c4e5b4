/**
 * BeforeQuery over HTTP (spec: Events; Expansion rule 6): the hook's
 * predicate confines list, read, the targets of update and delete, and every
 * expansion onto its table, requalified onto the joined table. A predicate
 * that cannot be requalified fails the request with a 500 problem document
 * naming the relation (docs/decisions/0600-hooks.md); it is never dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { HookContext, Hooks } from "../../runtime/hooks.js";
import { cmp, raw } from "../../runtime/predicate.js";
import type { TestDatabase } from "../support/db.js";
import { TENANT_SCHEMA, TENANT_SEED, orgIn, orgOf, tenantHooks } from "./schema.js";
import { compileText, databaseWith, mounted, type Client } from "./support.js";

let db: TestDatabase;
let service: ServiceDescriptor;
let client: Client;

beforeAll(async () => {
  const c = compileText(TENANT_SCHEMA);
  service = c.service;
  db = await databaseWith("hooks_scope", c.ddl, TENANT_SEED);
  client = mounted(service, { db: db.executor, hooks: tenantHooks(), hookData: orgOf, logError: () => {} });
});
afterAll(async () => {
  await db?.drop();
});

const two = { "x-org": "2" };
const ids = (items: { id: number }[]) => items.map((r) => r.id);

async function sql(text: string): Promise<Record<string, string | null>[]> {
  return (await db.executor.query({ text, values: [] })).rows;
}

describe("BeforeQuery confines every read of its table", () => {
  it("list: only the caller's live rows", async () => {
    const one = await client.get("/people?sort=name");
    expect(one.status).toBe(200);
    expect(ids(one.body.items)).toEqual([1, 3]);
    const other = await client.request("GET", "/people", undefined, two);
    expect(ids(other.body.items)).toEqual([4]);
    // The count is confined too.
    expect((await client.get("/people?count=exact")).body.total).toBe(2);
  });

  it("read: another tenant's row and a removed row are 404, like a missing one", async () => {
    expect((await client.get("/people/1")).status).toBe(200);
    for (const id of [4, 2, 99]) {
      const r = await client.get(`/people/${id}`);
      expect(r.status, `person ${id}`).toBe(404);
      expect(r.body).toMatchObject({ type: "/problems/not-found", status: 404 });
    }
  });

  it("update: a row outside the scope is 404 and stays unchanged", async () => {
    const r = await client.request("PATCH", "/people/4", { name: "Hijacked" });
    expect(r.status).toBe(404);
    expect(await sql(`SELECT name FROM people WHERE id = 4`)).toEqual([{ name: "Dee" }]);
    const own = await client.request("PATCH", "/people/3", { name: "Cyrus" });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: 3, name: "Cyrus" });
  });

  it("delete: a row outside the scope is 404 and stays", async () => {
    expect((await client.request("DELETE", "/notes/4")).status).toBe(404);
    expect((await client.request("DELETE", "/people/4")).status).toBe(404);
    expect(await sql(`SELECT count(*)::text AS n FROM notes WHERE id = 4`)).toEqual([{ n: "1" }]);
    expect(await sql(`SELECT gone_at FROM people WHERE id = 4`)).toEqual([{ gone_at: null }]);
  });

  it("forward expansion: the target is confined in the join; a hidden target reads as null", async () => {
    const r = await client.get("/notes?expand=author");
    expect(r.status).toBe(200);
    const authors = (r.body.items as { id: number; author: { id: number } | null }[]).map((n) => [
      n.id,
      n.author?.id ?? null,
    ]);
    // Note 2's author is removed, note 3's belongs to the other org: neither leaks.
    expect(authors).toEqual([
      [1, 1],
      [2, null],
      [3, null],
    ]);
    const read = await client.get("/notes/3?expand=author");
    expect(read.body.author).toBeNull();
  });

  it("inverse expansion: only the children the hook lets through", async () => {
    const r = await client.get("/orgs?expand=people");
    expect(r.status).toBe(200);
    expect(r.body.items).toHaveLength(1);
    expect(r.body.items[0].id).toBe(1);
    expect(ids(r.body.items[0].people.items)).toEqual(ids([{ id: 1 }, { id: 3 }]));
    const notes = await client.get("/people/1?expand=notes");
    expect(ids(notes.body.notes.items)).toEqual([1]);
  });
});

describe("hook context", () => {
  it("gets the table, the operation, the Hono context, the service's executor and hookData", async () => {
    const seen: { table: string; operation: string; org: number; http: boolean; db: boolean }[] = [];
    const base = tenantHooks();
    const record = (table: "people" | "notes") => (ctx: HookContext) => {
      seen.push({
        table,
        operation: ctx.operation,
        org: orgIn(ctx.data),
        http: ctx.http !== undefined,
        db: ctx.db === db.executor,
      });
      return base.beforeQuery![table]!(ctx);
    };
    const hooks: Hooks = {
      ...base,
      beforeQuery: { ...base.beforeQuery, people: record("people"), notes: record("notes") },
    };
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    await c.request("GET", "/people", undefined, two);
    await c.get("/people/1");
    await c.get("/notes?expand=author");
    await c.request("PATCH", "/notes/1", { body: "edited" });
    await c.request("DELETE", "/notes/99");
    expect(seen).toEqual([
      { table: "people", operation: "list", org: 2, http: true, db: true },
      { table: "people", operation: "read", org: 1, http: true, db: true },
      { table: "notes", operation: "list", org: 1, http: true, db: true },
      { table: "people", operation: "expand", org: 1, http: true, db: true },
      { table: "notes", operation: "update", org: 1, http: true, db: true },
      { table: "notes", operation: "delete", org: 1, http: true, db: true },
    ]);
  });

  it("without hookData, ctx.data is absent", async () => {
    let data: unknown = "unset";
    const hooks: Hooks = {
      ...tenantHooks(),
      beforeQuery: {
        ...tenantHooks().beforeQuery,
        orgs: (ctx) => {
          data = ctx.data;
          return cmp("id", "eq", 1);
        },
      },
    };
    const r = await mounted(service, { db: db.executor, hooks }).get("/orgs");
    expect(r.status).toBe(200);
    expect(data).toBeUndefined();
  });
});

describe("a predicate that cannot be requalified fails the request, naming the relation", () => {
  function withPeopleHook(hook: NonNullable<Hooks["beforeQuery"]>[string], logged: unknown[]): Client {
    const hooks: Hooks = { ...tenantHooks(), beforeQuery: { ...tenantHooks().beforeQuery, people: hook } };
    return mounted(service, { db: db.executor, hooks, hookData: orgOf, logError: (e) => logged.push(e) });
  }

  it("a raw predicate confines direct reads, but an expansion onto its table is a 500 naming the relation", async () => {
    const logged: unknown[] = [];
    const c = withPeopleHook((ctx) => raw`"org_id" = ${orgIn(ctx.data)} AND "gone_at" IS NULL`, logged);
    expect(ids((await c.get("/people?sort=name")).body.items)).toEqual([1, 3]);
    for (const url of ["/notes?expand=author", "/notes/1?expand=author", "/orgs?expand=people"]) {
      const r = await c.get(url);
      expect(r.status, url).toBe(500);
      expect(r.headers.get("content-type")).toContain("application/problem+json");
      expect(r.body.type).toBe("/problems/hook-misconfigured");
      expect(r.body.detail).toMatch(/table "people"/);
      expect(r.body.detail).toContain(url.includes("orgs") ? 'expansion "people"' : 'expansion "author"');
      expect(r.body.detail).toMatch(/raw SQL predicate/);
      // Neither the SQL text nor a column leaks.
      expect(r.text).not.toMatch(/org_id|gone_at|SELECT/);
    }
    expect(logged.length).toBe(3);
    // Without the expansion nothing is asked of the people hook.
    expect((await c.get("/notes")).status).toBe(200);
  });

  it("a comparison qualified with another table: 500 on the expansion and on the table itself", async () => {
    const c = withPeopleHook(() => cmp("id", "eq", 1, "orgs"), []);
    const r = await c.get("/notes?expand=author");
    expect(r.status).toBe(500);
    expect(r.body.type).toBe("/problems/hook-misconfigured");
    expect(r.body.detail).toContain('expansion "author"');
    expect(r.body.detail).toContain('qualified with table "orgs"');
    const direct = await c.get("/people");
    expect(direct.status).toBe(500);
    expect(direct.body.detail).toContain('The beforeQuery hook of table "people" cannot be applied');
  });

  it("a comparison qualified with its own table is requalified onto the join", async () => {
    const c = withPeopleHook((ctx) => cmp("org_id", "eq", orgIn(ctx.data), "people"), []);
    const r = await c.get("/notes?expand=author");
    expect(r.status).toBe(200);
    // Person 2 is soft-deleted: resc's own filter hides it whatever the hook returns (decision 1367).
    expect((r.body.items as { author: { id: number } | null }[]).map((n) => n.author?.id ?? null)).toEqual([
      1,
      null,
      null,
    ]);
  });

  it("a comparison on a column the table lacks is a 500 that does not name the column", async () => {
    const c = withPeopleHook(() => cmp("tenant", "eq", 1), []);
    const r = await c.get("/people");
    expect(r.status).toBe(500);
    expect(r.body.type).toBe("/problems/hook-misconfigured");
    expect(r.text).not.toContain("tenant");
  });

  it("a hook may confine by a hidden column; no response names it", async () => {
    const c = withPeopleHook(() => cmp("secret", "eq", "s"), []);
    const r = await c.get("/people?sort=name");
    expect(r.status).toBe(200);
    // Every person but the soft-deleted one, which resc's own filter hides (decision 1367).
    expect(r.body.items.length).toBe(3);
    expect(r.text).not.toContain("secret");
  });
});
