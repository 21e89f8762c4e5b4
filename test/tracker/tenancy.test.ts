/**
 * Tenant isolation (docs/decisions/0702-tracker-tenancy.md), declared by the
 * access blocks of spec.resource (docs/decisions/1367-access-rules.md):
 * another tenant's rows never appear in lists and answer 404 on read,
 * update and delete, exactly like rows that do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { service } from "../../examples/tracker/generated/tracker/index.js";
import { ACME, ADA, ALAN, GLOBEX, GRACE, startTracker, type Tracker } from "./setup.js";

let t: Tracker;
let ada: string;
let grace: string;
beforeAll(async () => {
  t = await startTracker("tenancy");
  ada = await t.login("ada@acme.test");
  grace = await t.login("grace@globex.test");
});
afterAll(async () => {
  await t?.drop();
});

type Row = Record<string, unknown>;
const ids = (items: Row[], key = "id") => items.map((r) => r[key]).sort();

describe("lists", () => {
  it("confines every served table to the caller's org, for every role, by its access blocks", () => {
    // A new table cannot be served unconfined by accident: each served table must be listed here.
    const TENANT_COLUMN: Record<string, string> = {
      orgs: "id",
      users: "org_id",
      lists: "org_id",
      tasks: "org_id",
      task_watchers: "org_id",
      comments: "org_id",
    };
    const served = service.tables.filter((x) => x.resource);
    expect(served.map((x) => x.name).sort()).toEqual(Object.keys(TENANT_COLUMN).sort());
    // Every request carries a verified token: no anonymous role, and the org claim is a required uuid.
    const auth = service.auth!;
    expect(auth.anonymous).toBeUndefined();
    expect(auth.claims.find((c) => c.name === "org")).toMatchObject({ kind: "uuid", nullable: false });
    for (const table of served) {
      const blocks = table.access ?? [];
      expect(blocks.length, table.name).toBeGreaterThan(0);
      // The roles granted anything on the table are exactly those of blocks that confine it: no block grants
      // an operation without the tenant rule on every operation it grants.
      for (const block of blocks) {
        expect(block.rows, `${table.name} ${block.roles.join(",")}`).toContainEqual({
          rule: { kind: "cmp", column: TENANT_COLUMN[table.name], op: "eq", value: { claim: "org" } },
        });
        // No check of its own: a row written must pass the tenant rule too (the rows rules are the check).
        expect(block.check, table.name).toBeUndefined();
      }
    }
  });

  it("shows each tenant its own rows of every resource", async () => {
    const expected: Record<string, [string, unknown[], unknown[]]> = {
      "/orgs": ["id", [ACME], [GLOBEX]],
      "/users": ["id", [ADA, ALAN], [GRACE]],
      "/lists": ["id", [1, 2, 3], [4]],
      "/tasks": ["id", [1, 2, 3, 4], [6]],
      "/task_watchers": ["task_id", [1, 3, 4], [6]],
      "/comments": [
        "id",
        ["00000000-0000-4000-8000-000000001001", "00000000-0000-4000-8000-000000001002"],
        ["00000000-0000-4000-8000-000000001003"],
      ],
    };
    for (const [path, [key, acme, globex]] of Object.entries(expected)) {
      const a = await t.request<{ items: Row[] }>("GET", `${path}?count=exact`, { token: ada });
      const g = await t.request<{ items: Row[] }>("GET", `${path}?count=exact`, { token: grace });
      expect(a.status, path).toBe(200);
      expect(ids(a.body.items, key), path).toEqual(acme);
      expect(ids(g.body.items, key), path).toEqual(globex);
      expect(a.body, path).toMatchObject({ total: acme.length });
    }
  });

  it("keeps filters, groups and search inside the tenant", async () => {
    const byList = await t.request("GET", "/tasks?list_id=eq.4", { token: ada });
    expect(byList.body.items).toEqual([]);
    const either = await t.request("GET", "/tasks?or=(list_id.eq.4,title.eq.Taste the oolong)", { token: ada });
    expect(either.body.items).toEqual([]);
    const negated = await t.request("GET", "/tasks?not=(list_id.eq.1)", { token: ada });
    expect(ids(negated.body.items)).toEqual([3, 4]);
    const search = await t.request("GET", "/tasks?search=oolong", { token: ada });
    expect(search.body.items).toEqual([]);
    const byOrg = await t.request("GET", `/users?org_id=eq.${GLOBEX}`, { token: ada });
    expect(byOrg.body.items).toEqual([]);
  });

  it("pages without leaking: a cursor walk covers the tenant's rows only", async () => {
    const seen: unknown[] = [];
    let path = "/tasks?per_page=1";
    for (let i = 0; i < 10 && path; i++) {
      const r = await t.request<{ items: Row[]; next_cursor?: string }>("GET", path, { token: ada });
      seen.push(...r.body.items.map((x) => x.id));
      path = r.body.next_cursor ? `/tasks?per_page=1&cursor=${encodeURIComponent(r.body.next_cursor)}` : "";
    }
    expect([...seen].sort()).toEqual([1, 2, 3, 4]);
  });
});

describe("items", () => {
  async function expectMissing(method: string, path: string, body?: unknown): Promise<void> {
    const r = await t.request(method, path, body === undefined ? { token: ada } : { token: ada, body });
    expect(r.status, `${method} ${path}`).toBe(404);
    expect(r.headers.get("content-type")).toBe("application/problem+json");
    expect(r.body).toMatchObject({ type: "/problems/not-found", errors: [{ location: "path.id" }] });
    expect(JSON.stringify(r.body)).not.toMatch(/globex|oolong|tasting|grace/i);
  }

  it("answers another tenant's row 404 on read, like a missing one", async () => {
    await expectMissing("GET", `/orgs/${GLOBEX}`);
    await expectMissing("GET", `/users/${GRACE}`);
    await expectMissing("GET", "/lists/4");
    await expectMissing("GET", "/tasks/6");
    await expectMissing("GET", "/comments/00000000-0000-4000-8000-000000001003");
    const other = await t.request("GET", "/tasks/6", { token: ada });
    const missing = await t.request("GET", "/tasks/999", { token: ada });
    expect(other.body).toEqual(missing.body);
    expect((await t.request("GET", "/tasks/6", { token: grace })).status).toBe(200);
  });

  it("answers another tenant's row 404 on update and leaves it unchanged", async () => {
    await expectMissing("PATCH", "/tasks/6", { title: "hijacked" });
    await expectMissing("PATCH", "/lists/4", { title: "hijacked" });
    await expectMissing("PATCH", `/users/${GRACE}`, { name: "hijacked" });
    const rows = await t.sql(
      `SELECT (SELECT "title" FROM "tasks" WHERE "id" = 6) AS t, (SELECT "title" FROM "lists" WHERE "id" = 4) AS l,
              (SELECT "name" FROM "users" WHERE "id" = $1) AS u`,
      [GRACE],
    );
    expect(rows[0]).toEqual({ t: "Taste the oolong", l: "Tastings", u: "Grace Hopper" });
  });

  it("answers another tenant's row 404 on delete and keeps it", async () => {
    await expectMissing("DELETE", "/tasks/6");
    await expectMissing("DELETE", "/lists/4");
    await expectMissing("DELETE", "/comments/00000000-0000-4000-8000-000000001003");
    const rows = await t.sql(
      `SELECT (SELECT "deleted_at" IS NULL FROM "tasks" WHERE "id" = 6)::text AS live,
              (SELECT count(*) FROM "lists" WHERE "id" = 4)::text AS lists,
              (SELECT count(*) FROM "comments" WHERE "org_id" = $1)::text AS comments`,
      [GLOBEX],
    );
    expect(rows[0]).toEqual({ live: "true", lists: "1", comments: "1" });
  });

  it("lets a user edit only their own profile and delete only their own comments", async () => {
    await expectMissing("PATCH", `/users/${ALAN}`, { name: "Not Alan" });
    const self = await t.request("PATCH", `/users/${ADA}`, { token: ada, body: { name: "Ada King" } });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: ADA, name: "Ada King", org_id: ACME });
    expect((await t.request("GET", `/users/${ALAN}`, { token: ada })).status).toBe(200);
    await expectMissing("DELETE", "/comments/00000000-0000-4000-8000-000000001001");
    const own = await t.request("DELETE", "/comments/00000000-0000-4000-8000-000000001002", { token: ada });
    expect(own.status).toBe(204);
  });

  it("never serves password hashes or the soft-delete marker", async () => {
    const users = await t.request("GET", "/users", { token: ada });
    const tasks = await t.request("GET", "/tasks/1", { token: ada });
    expect(JSON.stringify(users.body)).not.toMatch(/password_hash|scrypt/);
    expect(tasks.body).not.toHaveProperty("deleted_at");
  });
});
