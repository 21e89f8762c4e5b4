/**
 * Computed columns over HTTP on spec.resource's `tasks.summary` (spec:
 * Column capabilities, computed; docs/decisions/0206-computed-columns.md):
 * computed only when selected, and as a Searchable text column part of the
 * search fan-out as an expression, whether or not it is selected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Executor, SqlStatement } from "../../runtime/exec/executor.js";
import type { TestDatabase } from "../support/db.js";
import { hookData, hooks as tenantHooks } from "../fixtures-hooks/tenant.js";
import { databaseWith, mounted, specSchema, type Client } from "./support.js";

/** The expression of `summary` in spec.resource, as the SQL carries it. */
const SUMMARY_SQL = "coalesce(attrs->>'note', '')";

let db: TestDatabase;
let client: Client;
const statements: string[] = [];

beforeAll(async () => {
  const { service, ddl, seed } = await specSchema();
  expect(service.tables.find((t) => t.name === "tasks")?.columns.find((c) => c.name === "summary")?.computed).toContain(
    SUMMARY_SQL,
  );
  db = await databaseWith("hooks_computed", ddl, seed);
  const recording: Executor = {
    ...db.executor,
    query: (s: SqlStatement) => {
      statements.push(s.text);
      return db.executor.query(s);
    },
  };
  client = mounted(service, { db: recording, hooks: tenantHooks(service), hookData });
});
afterAll(async () => {
  await db?.drop();
});

/** The SQL text of the statements `send` runs. */
async function sqlOf(send: () => Promise<unknown>): Promise<string> {
  statements.length = 0;
  await send();
  return statements.join("\n");
}

describe("tasks.summary", () => {
  it("is served with every unprojected row, computed from the row", async () => {
    const r = await client.get("/tasks/1");
    expect(r.status).toBe(200);
    expect(r.body.summary).toBe(`${r.body.title} ${(r.body.attrs as { note?: string } | null)?.note ?? ""}`);
    expect(r.body.summary).toBe("Design the fuel pump needs review");
  });

  it("is not computed when a projection leaves it out", async () => {
    let r: { status: number; body: { items: Record<string, unknown>[] } } | undefined;
    const sql = await sqlOf(async () => (r = await client.get("/tasks?select=id,title")));
    expect(r!.status).toBe(200);
    expect(r!.body.items.length).toBeGreaterThan(0);
    for (const item of r!.body.items) expect(Object.keys(item).sort()).toEqual(["id", "title"]);
    expect(sql).not.toContain(SUMMARY_SQL);
  });

  it("is computed when selected alone (with the key)", async () => {
    const r = await client.get("/tasks?select=summary&sort=-created_at");
    expect(r.status).toBe(200);
    expect(r.body.items[0]).toEqual({ id: expect.any(Number), summary: expect.any(String) });
  });

  it("joins the search fan-out as an expression: text only in attrs.note is found", async () => {
    const r = await client.get("/tasks?search=NEEDS%20review");
    expect(r.status).toBe(200);
    expect(r.body.items.map((t: { id: number }) => t.id)).toEqual([1]);
    const other = await client.request("GET", "/tasks?search=second%20flush", undefined, {
      "x-org-id": "00000000-0000-4000-8000-000000000002",
    });
    expect(other.body.items.map((t: { title: string }) => t.title)).toEqual(["Taste the oolong"]);
  });

  it("is searched even when not selected: in the condition, not in the output", async () => {
    let r: { body: { items: Record<string, unknown>[] } } | undefined;
    const sql = await sqlOf(async () => (r = await client.get("/tasks?select=id&search=needs%20review")));
    expect(r!.body.items).toEqual([{ id: 1 }]);
    const [select, where] = sql.split(" WHERE ");
    expect(select).not.toContain(SUMMARY_SQL);
    expect(where).toContain(SUMMARY_SQL);
  });

  it("takes no filter and no sort", async () => {
    const f = await client.get("/tasks?summary=eq.x");
    expect(f.status).toBe(400);
    expect(f.body.errors[0].location).toBe("query.summary");
    const s = await client.get("/tasks?sort=summary");
    expect(s.status).toBe(400);
    expect(s.body.errors[0].allowed).not.toContain("summary");
  });
});
