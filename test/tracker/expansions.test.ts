/**
 * Tenant scope inside expansions (spec: Expansion rule 6): the target
 * table's declared rule (its BeforeQuery predicate) is requalified onto the
 * join. Rows that cross tenants cannot be written through the API (a
 * written reference must name a row the caller may read), so this file
 * plants them with SQL: each would show up in an expansion if the target's
 * scope were not applied to the join.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACME, ADA, GLOBEX, GRACE, startTracker, type Tracker } from "./setup.js";

let t: Tracker;
let ada: string;
let planted: Record<string, string>;
beforeAll(async () => {
  t = await startTracker("expansions");
  ada = await t.login("ada@acme.test");
  const one = async (text: string, values: string[]): Promise<string> => (await t.sql(text, values))[0].id as string;
  planted = {
    // a Globex task on Acme's list 1, with a Globex comment
    globexTaskOnAcmeList: await one(
      `INSERT INTO "tasks" ("org_id", "list_id", "title", "labels") VALUES ($1, 1, 'planted globex task', '{}') RETURNING "id"::text AS id`,
      [GLOBEX],
    ),
    // an Acme task on Globex's list 4, assigned to Grace (Globex)
    acmeTaskOnGlobexList: await one(
      `INSERT INTO "tasks" ("org_id", "list_id", "assignee_id", "title", "labels") VALUES ($1, 4, $2, 'planted acme task', '{}') RETURNING "id"::text AS id`,
      [ACME, GRACE],
    ),
  };
  planted.globexCommentOnAcmeTask = await one(
    `INSERT INTO "comments" ("org_id", "task_id", "author_id", "body") VALUES ($1, 1, $2, 'planted globex comment') RETURNING "id"::text AS id`,
    [GLOBEX, GRACE],
  );
  planted.acmeCommentOnGlobexTask = await one(
    `INSERT INTO "comments" ("org_id", "task_id", "author_id", "body") VALUES ($1, 6, $2, 'planted acme comment') RETURNING "id"::text AS id`,
    [ACME, GRACE],
  );
  await t.sql(`INSERT INTO "task_watchers" ("org_id", "task_id", "user_id") VALUES ($1, 2, $2)`, [ACME, GRACE]);
  await t.sql(`INSERT INTO "task_watchers" ("org_id", "task_id", "user_id") VALUES ($1, 6, $2)`, [ACME, ADA]);
});
afterAll(async () => {
  await t?.drop();
});

type Row = Record<string, any>;

describe("inverse expansions", () => {
  it("leave another tenant's children out of a collection", async () => {
    const r = await t.request<Row>("GET", "/lists/1?expand=tasks", { token: ada });
    expect(r.status).toBe(200);
    expect(r.body.tasks.items.map((x: Row) => x.id)).toEqual([1, 2]);
    const list = await t.request<{ items: Row[] }>("GET", "/lists?expand=tasks", { token: ada });
    const all = list.body.items.flatMap((l) => l.tasks.items.map((x: Row) => x.title));
    expect(all).not.toContain("planted globex task");
  });

  it("leave soft-deleted children out of a collection", async () => {
    const r = await t.request<Row>("GET", "/lists/3?expand=tasks", { token: ada });
    expect(r.body.tasks).toEqual({ items: [], has_more: false });
  });

  it("leave another tenant's comments out of a task's comments", async () => {
    const r = await t.request<Row>("GET", "/tasks/1?expand=comments", { token: ada });
    expect(r.body.comments.items.map((c: Row) => c.body).sort()).toEqual([
      "Pump drawings attached.",
      "Reviewed, two remarks.",
    ]);
  });
});

describe("forward expansions", () => {
  it("read another tenant's target as null, like a missing one", async () => {
    const task = await t.request<Row>("GET", `/tasks/${planted.acmeTaskOnGlobexList}?expand=list,assignee`, {
      token: ada,
    });
    expect(task.status).toBe(200);
    expect(task.body).toMatchObject({ list_id: 4, list: null, assignee_id: GRACE, assignee: null });
    const comment = await t.request<Row>("GET", `/comments/${planted.acmeCommentOnGlobexTask}?expand=task,author`, {
      token: ada,
    });
    expect(comment.body).toMatchObject({ task_id: 6, task: null, author: null });
    const watchers = await t.request<{ items: Row[] }>("GET", "/task_watchers?expand=task,user", { token: ada });
    const byTask = Object.fromEntries(watchers.body.items.map((w) => [`${w.task_id}/${w.user_id}`, w]));
    expect(byTask[`2/${GRACE}`]).toMatchObject({ task: { id: 2 }, user: null });
    expect(byTask[`6/${ADA}`]).toMatchObject({ task: null, user: { id: ADA } });
  });

  it("read a soft-deleted target as null", async () => {
    await t.sql(`INSERT INTO "task_watchers" ("org_id", "task_id", "user_id") VALUES ($1, 5, $2)`, [ACME, ADA]);
    const r = await t.request<{ items: Row[] }>("GET", `/task_watchers?task_id=eq.5&expand=task`, { token: ada });
    expect(r.body.items).toMatchObject([{ task_id: 5, task: null }]);
  });

  it("still show the tenant's own targets", async () => {
    const r = await t.request<Row>("GET", "/tasks/1?expand=list,assignee", { token: ada });
    expect(r.body).toMatchObject({ list: { id: 1, title: "Backlog" }, assignee: { id: ADA } });
  });
});
