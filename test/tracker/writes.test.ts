/**
 * Writes of the reference application (docs/decisions/0702-tracker-tenancy.md):
 * spec.resource's access blocks stamp the tenant and a comment's author,
 * references must stay inside the tenant, DELETE /tasks is a soft delete,
 * the declared actions reach the caller's tasks only, AfterCommit logs and
 * writes audit_events.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, ADA, GLOBEX, GRACE, startTracker, type Tracker } from "./setup.js";

let t: Tracker;
let ada: string;
let grace: string;
beforeAll(async () => {
  t = await startTracker("writes");
  ada = await t.login("ada@acme.test");
  grace = await t.login("grace@globex.test");
});
afterAll(async () => {
  await t?.drop();
});

type Row = Record<string, any>;

describe("BeforeCreate stamping", () => {
  it("stamps the caller's org on lists and tasks", async () => {
    const list = await t.request<Row>("POST", "/lists", { token: grace, body: { title: "Blends", position: 2 } });
    expect(list.status).toBe(201);
    expect(list.body).toMatchObject({ org_id: GLOBEX, title: "Blends" });
    const task = await t.request<Row>("POST", "/tasks", {
      token: grace,
      body: { list_id: list.body.id, title: "Try a new blend", labels: ["tasting"] },
    });
    expect(task.status).toBe(201);
    expect(task.body).toMatchObject({ org_id: GLOBEX, list_id: list.body.id, status: "todo" });
    expect(task.headers.get("location")).toBe(`/tasks/${task.body.id}`);
    const stored = await t.sql(`SELECT "org_id"::text AS org FROM "tasks" WHERE "id" = $1`, [String(task.body.id)]);
    expect(stored).toEqual([{ org: GLOBEX }]);
  });

  it("stamps a comment's org and author from the token", async () => {
    const r = await t.request<Row>("POST", "/comments", { token: ada, body: { task_id: 3, body: "On it." } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ org_id: ACME, author_id: ADA, task_id: 3, body: "On it." });
  });

  it("refuses a body that tries to set the tenant or the author (read-only)", async () => {
    const task = await t.request<Row>("POST", "/tasks", {
      token: ada,
      body: { list_id: 1, title: "sneaky", labels: [], org_id: GLOBEX },
    });
    expect(task.status).toBe(400);
    expect(task.body.errors).toContainEqual(expect.objectContaining({ location: "body.org_id" }));
    const comment = await t.request<Row>("POST", "/comments", {
      token: ada,
      body: { task_id: 1, body: "as Grace", author_id: GRACE },
    });
    expect(comment.status).toBe(400);
    const moved = await t.request<Row>("PATCH", "/lists/1", { token: ada, body: { org_id: GLOBEX } });
    expect(moved.status).toBe(400);
    const count = await t.sql(`SELECT count(*)::text AS n FROM "tasks" WHERE "title" = 'sneaky'`);
    expect(count).toEqual([{ n: "0" }]);
  });
});

describe("references stay inside the tenant", () => {
  function expectInvalidRow(r: { status: number; body: any }, location: string): void {
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ type: "/problems/invalid-row", status: 422 });
    expect(r.body.errors).toContainEqual(expect.objectContaining({ location }));
  }

  it("refuses a task on another tenant's list or assigned to another tenant's user", async () => {
    expectInvalidRow(
      await t.request("POST", "/tasks", { token: ada, body: { list_id: 4, title: "x", labels: [] } }),
      "body.list_id",
    );
    expectInvalidRow(
      await t.request("POST", "/tasks", {
        token: ada,
        body: { list_id: 1, assignee_id: GRACE, title: "x", labels: [] },
      }),
      "body.assignee_id",
    );
  });

  it("answers a missing row and another tenant's row alike", async () => {
    const foreign = await t.request("POST", "/tasks", { token: ada, body: { list_id: 4, title: "x", labels: [] } });
    const missing = await t.request("POST", "/tasks", { token: ada, body: { list_id: 999, title: "x", labels: [] } });
    expect(missing.body.errors).toEqual(foreign.body.errors);
  });

  it("refuses a comment on another tenant's task or on a soft-deleted one", async () => {
    expectInvalidRow(
      await t.request("POST", "/comments", { token: ada, body: { task_id: 6, body: "x" } }),
      "body.task_id",
    );
    expectInvalidRow(
      await t.request("POST", "/comments", { token: ada, body: { task_id: 5, body: "x" } }),
      "body.task_id",
    );
  });

  it("refuses an update moving a task to another tenant's list, and accepts one inside it", async () => {
    expectInvalidRow(await t.request("PATCH", "/tasks/1", { token: ada, body: { list_id: 4 } }), "body.list_id");
    expectInvalidRow(
      await t.request("PATCH", "/tasks/1", { token: ada, body: { assignee_id: GRACE } }),
      "body.assignee_id",
    );
    const rows = await t.sql(`SELECT "list_id"::text AS l, "assignee_id"::text AS a FROM "tasks" WHERE "id" = 1`);
    expect(rows).toEqual([{ l: "1", a: ADA }]);
    const ok = await t.request<Row>("PATCH", "/tasks/1", { token: ada, body: { list_id: 2, assignee_id: null } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ list_id: 2, assignee_id: null });
  });
});

describe("soft delete of tasks", () => {
  it("hides a deleted task everywhere and keeps it in the table with deleted_at set", async () => {
    const before = await t.sql(`SELECT count(*)::text AS n FROM "tasks"`);
    const del = await t.request("DELETE", "/tasks/2", { token: ada });
    expect(del.status).toBe(204);
    expect((await t.request("GET", "/tasks/2", { token: ada })).status).toBe(404);
    expect((await t.request("PATCH", "/tasks/2", { token: ada, body: { title: "back" } })).status).toBe(404);
    expect((await t.request("DELETE", "/tasks/2", { token: ada })).status).toBe(404);
    const list = await t.request<{ items: Row[] }>("GET", "/tasks", { token: ada });
    expect(list.body.items.map((x) => x.id)).not.toContain(2);
    const expanded = await t.request<Row>("GET", "/lists/1?expand=tasks", { token: ada });
    expect(expanded.body.tasks.items.map((x: Row) => x.id)).not.toContain(2);
    const row = await t.sql(`SELECT ("deleted_at" IS NOT NULL)::text AS gone, "title" FROM "tasks" WHERE "id" = 2`);
    expect(row).toEqual([{ gone: "true", title: "Order titanium" }]);
    expect(await t.sql(`SELECT count(*)::text AS n FROM "tasks"`)).toEqual(before);
  });

  it("keeps the seed's deleted task out of reads", async () => {
    expect((await t.request("GET", "/tasks/5", { token: ada })).status).toBe(404);
  });
});

describe("declared actions", () => {
  it("completes and reopens a task of the caller's org, answering the task as a read does", async () => {
    const done = await t.request<Row>("POST", "/tasks/1/complete", { token: ada, body: { note: "shipped" } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({
      id: 1,
      org_id: ACME,
      status: "done",
      attrs: { note: "shipped", source: "jira" },
    });
    const again = await t.request<Row>("POST", "/tasks/1/complete", { token: ada, body: {} });
    expect(again.status).toBe(409);
    const reopened = await t.request<Row>("POST", "/tasks/1/reopen", { token: ada });
    expect([reopened.status, reopened.body.status]).toEqual([200, "todo"]);
  });

  it("answers another tenant's task 404 and leaves it as it was; without a token 401", async () => {
    const other = await t.request("POST", "/tasks/6/complete", { token: ada, body: {} });
    expect(other.status).toBe(404);
    expect(other.body).toEqual((await t.request("POST", "/tasks/999/complete", { token: ada, body: {} })).body);
    expect((await t.request("POST", "/tasks/6/complete", { body: {} })).status).toBe(401);
    expect(await t.sql(`SELECT "status"::text AS s FROM "tasks" WHERE "id" = 6`)).toEqual([{ s: "todo" }]);
    expect((await t.request("POST", "/tasks/6/complete", { token: grace, body: {} })).status).toBe(200);
  });
});

describe("AfterCommit", () => {
  it("logs each committed write and records it in audit_events", async () => {
    const upd = await t.request<Row>("PATCH", "/tasks/3", { token: ada, body: { status: "doing" } });
    expect(upd.status).toBe(200);
    const del = await t.request("DELETE", "/tasks/4", { token: ada });
    expect(del.status).toBe(204);
    expect(t.logs).toContain(`audit: task.update 3 by ${ADA}`);
    expect(t.logs).toContain(`audit: task.delete 4 by ${ADA} (soft)`);
    const rows = await t.sql(
      `SELECT "org_id"::text AS org, "actor_id"::text AS actor, "action", "payload"::text AS payload
         FROM "audit_events" WHERE "payload"->>'id' IN ('3', '4') ORDER BY "id"`,
    );
    expect(rows.map((r) => ({ ...r, payload: JSON.parse(r.payload as string) }))).toEqual([
      {
        org: ACME,
        actor: ADA,
        action: "task.update",
        payload: { id: 3, row: expect.objectContaining({ id: 3, status: "doing" }) },
      },
      { org: ACME, actor: ADA, action: "task.delete", payload: { id: 4, soft_delete: true } },
    ]);
  });

  it("records creates with the caller's org", async () => {
    const r = await t.request<Row>("POST", "/lists", { token: grace, body: { title: "Audited", position: 9 } });
    expect(r.status).toBe(201);
    const rows = await t.sql(
      `SELECT "org_id"::text AS org, "actor_id"::text AS actor FROM "audit_events" WHERE "action" = 'list.create' AND "payload"->>'id' = $1`,
      [String(r.body.id)],
    );
    expect(rows).toEqual([{ org: GLOBEX, actor: GRACE }]);
  });

  it("has no hook on comments (no transaction to follow), so comment writes succeed unaudited", async () => {
    const r = await t.request<Row>("POST", "/comments", { token: ada, body: { task_id: 1, body: "unaudited" } });
    expect(r.status).toBe(201);
    expect(await t.sql(`SELECT count(*)::text AS n FROM "audit_events" WHERE "action" LIKE 'comment.%'`)).toEqual([
      { n: "0" },
    ]);
  });

  it("answered nothing with a 5xx in this file", () => {
    expect(t.faults).toEqual([]);
  });
});
