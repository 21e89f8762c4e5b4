/**
 * Hooks on writes (spec: Events; Generated operations rules 5-7):
 * BeforeCreate stamps read-only columns, ValidateCreate is the row-building
 * step answered with 422, AfterCommit follows the commit and reads its own
 * write, DisableTransactions refuses AfterCommit at request time, and a
 * soft-deleting table serves DELETE as marking the row
 * (docs/decisions/0600-hooks.md, 0601-soft-delete-removal.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { CommitEvent, Hooks } from "../../runtime/hooks.js";
import type { TestDatabase } from "../support/db.js";
import { TENANT_SCHEMA, TENANT_SEED, orgOf, tenantHooks } from "./schema.js";
import { compileText, databaseWith, mounted } from "./support.js";

/** A resource whose writes run without a transaction (spec: DisableTransactions). */
const IMPORT_SCHEMA = `
table imports {
  id   bigint @primary_key @default(identity)
  name text
  resource "/imports" { ops = [crud, list]  disable_transactions = true }
}
`;

let db: TestDatabase;
let service: ServiceDescriptor;
let imports: ServiceDescriptor;

beforeAll(async () => {
  const c = compileText(TENANT_SCHEMA);
  const i = compileText(IMPORT_SCHEMA, "imports.resource");
  service = c.service;
  imports = i.service;
  db = await databaseWith("hooks_writes", c.ddl + "\n" + i.ddl, TENANT_SEED);
});
afterAll(async () => {
  await db?.drop();
});

async function sql(text: string, ...values: string[]): Promise<Record<string, string | null>[]> {
  return (await db.executor.query({ text, values })).rows;
}

describe("BeforeCreate", () => {
  it("stamps a read-only column the body may not carry", async () => {
    const c = mounted(service, { db: db.executor, hooks: tenantHooks(), hookData: orgOf });
    const refused = await c.request("POST", "/people", { name: "Eve", email: "eve@one.test", org_id: 2 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({ location: "body.org_id", detail: "org_id is read-only; only the server sets it" }),
    ]);
    const created = await c.request("POST", "/people", { name: "Eve", email: "eve@two.test" }, { "x-org": "2" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Eve", org_id: 2 });
    expect(created.headers.get("location")).toBe(`/people/${created.body.id}`);
  });

  it("receives the decoded body and its context", async () => {
    let seen: unknown;
    const base = tenantHooks();
    const hooks: Hooks = {
      ...base,
      beforeCreate: {
        ...base.beforeCreate,
        notes: (ctx, values) => {
          seen = { table: ctx.table, operation: ctx.operation, values, http: ctx.http !== undefined };
          return { ...values, org_id: 1 };
        },
      },
    };
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    const r = await c.request("POST", "/notes", { author_id: 1, body: "hello" });
    expect(r.status).toBe(201);
    expect(seen).toEqual({ table: "notes", operation: "create", values: { author_id: 1n, body: "hello" }, http: true });
  });
});

describe("ValidateCreate: the create type's row-building step", () => {
  const hooks: Hooks = {
    ...tenantHooks(),
    validateCreate: {
      people: (_ctx, v) => {
        const problems = [];
        if (typeof v.email === "string" && typeof v.name === "string" && !v.email.startsWith(v.name.toLowerCase())) {
          problems.push({ location: "body.email", detail: "email must start with the name" });
        }
        if (v.org_id !== 1) problems.push({ location: "body", detail: "only org 1 takes new people" });
        return problems;
      },
    },
  };

  it("refuses with 422 listing every problem; nothing is written", async () => {
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    const r = await c.request("POST", "/people", { name: "Fay", email: "someone@two.test" }, { "x-org": "2" });
    expect(r.status).toBe(422);
    expect(r.headers.get("content-type")).toContain("application/problem+json");
    expect(r.body).toEqual({
      type: "/problems/invalid-row",
      title: "Unprocessable Content",
      status: 422,
      detail: "email must start with the name (and 1 more problem)",
      errors: [
        { location: "body.email", detail: "email must start with the name" },
        { location: "body", detail: "only org 1 takes new people" },
      ],
    });
    expect(await sql(`SELECT count(*)::text AS n FROM people WHERE name = 'Fay'`)).toEqual([{ n: "0" }]);
  });

  it("sees the stamped values and accepts a valid row", async () => {
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    const r = await c.request("POST", "/people", { name: "Gus", email: "gus@one.test" });
    expect(r.status).toBe(201);
  });

  it("a body error is still a 400, found before the row is built", async () => {
    let called = false;
    const c = mounted(service, {
      db: db.executor,
      hooks: { ...tenantHooks(), validateCreate: { people: () => ((called = true), []) } },
      hookData: orgOf,
    });
    const r = await c.request("POST", "/people", { name: 5 });
    expect(r.status).toBe(400);
    expect(called).toBe(false);
  });
});

describe("AfterCommit", () => {
  it("runs after the commit and reads its own write through the executor", async () => {
    const events: { event: CommitEvent; stored: Record<string, string | null>[] }[] = [];
    const hooks: Hooks = {
      ...tenantHooks(),
      afterCommit: {
        people: async (ctx, event) => {
          // Another connection of the pool: it sees the row only if the transaction committed.
          const stored = (
            await ctx.db!.query({
              text: `SELECT name, (gone_at IS NOT NULL)::text AS gone FROM people WHERE id = $1::text::bigint`,
              values: [String(event.key)],
            })
          ).rows;
          events.push({ event, stored });
        },
      },
    };
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    const created = await c.request("POST", "/people", { name: "Hal", email: "hal@one.test" });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await c.request("PATCH", `/people/${id}`, { name: "Hal 2" })).status).toBe(200);
    expect((await c.request("DELETE", `/people/${id}`)).status).toBe(204);
    // A refused write commits nothing, so no hook runs.
    expect((await c.request("POST", "/people", { name: "Dup", email: "hal@one.test" })).status).toBe(409);
    expect((await c.request("PATCH", `/people/4`, { name: "x" })).status).toBe(404);
    expect(events).toEqual([
      {
        event: { table: "people", operation: "create", key: id, row: created.body },
        stored: [{ name: "Hal", gone: "false" }],
      },
      {
        event: { table: "people", operation: "update", key: id, row: { ...created.body, name: "Hal 2" } },
        stored: [{ name: "Hal 2", gone: "false" }],
      },
      {
        event: { table: "people", operation: "delete", key: id, softDeleted: true },
        stored: [{ name: "Hal 2", gone: "true" }],
      },
    ]);
  });

  it("a failing hook is logged; the committed write still answers success", async () => {
    const logged: unknown[] = [];
    const hooks: Hooks = {
      ...tenantHooks(),
      afterCommit: {
        notes: () => {
          throw new Error("audit sink down");
        },
      },
    };
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf, logError: (e) => logged.push(e) });
    const r = await c.request("POST", "/notes", { author_id: 1, body: "kept" });
    expect(r.status).toBe(201);
    expect(logged.map((e) => (e as Error).message)).toEqual(["audit sink down"]);
    expect(await sql(`SELECT body FROM notes WHERE id = $1::text::bigint`, String(r.body.id))).toEqual([
      { body: "kept" },
    ]);
  });

  it("with DisableTransactions, every write of a resource with an AfterCommit hook fails at request time, writing nothing", async () => {
    const logged: unknown[] = [];
    const c = mounted(imports, {
      db: db.executor,
      hooks: { afterCommit: { imports: () => {} } },
      logError: (e) => logged.push(e),
    });
    const seeded = await mounted(imports, { db: db.executor }).request("POST", "/imports", { name: "first" });
    expect(seeded.status).toBe(201);
    const id = seeded.body.id as number;
    for (const [method, url, body] of [
      ["POST", "/imports", { name: "second" }],
      ["PATCH", `/imports/${id}`, { name: "changed" }],
      ["DELETE", `/imports/${id}`, undefined],
    ] as const) {
      const r = await c.request(method, url, body);
      expect(r.status, `${method} ${url}`).toBe(500);
      expect(r.body).toMatchObject({
        type: "/problems/hook-misconfigured",
        status: 500,
        detail:
          'The afterCommit hook of table "imports" cannot be applied: its resource disables transactions, so there is no commit to follow.',
      });
    }
    expect(logged).toHaveLength(3);
    expect(await sql(`SELECT name FROM imports ORDER BY id`)).toEqual([{ name: "first" }]);
    // Reads are not writes: they are served.
    expect((await c.get("/imports")).status).toBe(200);
  });
});

describe("soft delete: DELETE on a table with a soft-delete column marks the row", () => {
  it("sets the column to now() instead of deleting; the row stays; a second DELETE is 404", async () => {
    const c = mounted(service, { db: db.executor, hooks: tenantHooks(), hookData: orgOf });
    const before = await sql(`SELECT now()::text AS t`);
    expect((await c.request("DELETE", "/people/3")).status).toBe(204);
    const [row] = await sql(
      `SELECT name, (gone_at >= $1::timestamptz)::text AS recent FROM people WHERE id = 3`,
      before[0].t!,
    );
    expect(row).toEqual({ name: expect.any(String), recent: "true" });
    expect((await c.get("/people/3")).status).toBe(404);
    expect((await c.request("DELETE", "/people/3")).status).toBe(404);
  });

  it("a removed row is not removed again even when the hook does not filter removed rows", async () => {
    const hooks: Hooks = { ...tenantHooks(), beforeQuery: { ...tenantHooks().beforeQuery, people: () => undefined } };
    const c = mounted(service, { db: db.executor, hooks, hookData: orgOf });
    const [{ gone_at: mark }] = await sql(`SELECT gone_at::text FROM people WHERE id = 2`);
    expect((await c.request("DELETE", "/people/2")).status).toBe(404);
    expect(await sql(`SELECT gone_at::text FROM people WHERE id = 2`)).toEqual([{ gone_at: mark }]);
  });

  it("a table without a soft-delete column is really deleted", async () => {
    const c = mounted(service, { db: db.executor, hooks: tenantHooks(), hookData: orgOf });
    expect((await c.request("DELETE", "/notes/2")).status).toBe(204);
    expect(await sql(`SELECT count(*)::text AS n FROM notes WHERE id = 2`)).toEqual([{ n: "0" }]);
  });
});
