/**
 * The in-process query builder against a real database (spec.resource DDL
 * and the reference application's seed): the same hooks, the same
 * statements as an HTTP list request, rows in the response's JSON form,
 * and the run-time checks untyped callers meet. test/builder/types.check.ts
 * holds the compile-time side.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TrackerSchema } from "../../fixtures/spec/expected/hono/tracker/service.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor, SqlStatement } from "../../runtime/exec/executor.js";
import type { HookContext, Hooks } from "../../runtime/hooks.js";
import { HookError } from "../../runtime/hook-error.js";
import { createQueryBuilder, type QueryBuilder } from "../../runtime/builder/index.js";
import { cmp, raw } from "../../runtime/predicate.js";
import { ProblemError } from "../../runtime/problem.js";
import type { TestDatabase } from "../support/db.js";
import { hookData, hooks as tenantHooks } from "../fixtures-hooks/tenant.js";
import { databaseWith, mounted, specSchema } from "../hooks/support.js";

const ACME = "00000000-0000-4000-8000-000000000001";
const GLOBEX = "00000000-0000-4000-8000-000000000002";

let db: TestDatabase;
let service: ServiceDescriptor;
let hooks: Hooks;
let q: QueryBuilder<TrackerSchema>;
const statements: SqlStatement[] = [];
let recording: Executor;

beforeAll(async () => {
  const spec = await specSchema();
  service = spec.service;
  db = await databaseWith("builder", spec.ddl, spec.seed);
  hooks = tenantHooks(service);
  recording = {
    ...db.executor,
    query: (s: SqlStatement) => {
      statements.push(s);
      return db.executor.query(s);
    },
  };
  q = createQueryBuilder<TrackerSchema>(service, { db: recording, hooks, data: { orgId: ACME } });
});
afterAll(async () => {
  await db?.drop();
});

const ids = (rows: { id: number }[]) => rows.map((r) => r.id);

/** The problem a builder call throws. */
function problemOf(f: () => unknown): ProblemError {
  try {
    f();
  } catch (e) {
    if (e instanceof ProblemError) return e;
    throw e;
  }
  throw new Error("expected a ProblemError");
}

describe("one query, one statement, as over HTTP", () => {
  it("builds the statement the equivalent list request runs: same row, condition, order, page and bind parameters", async () => {
    statements.length = 0;
    const rows = await q
      .from("tasks")
      .where("status", "in", ["todo", "doing"])
      .orderBy("-created_at")
      .select("id", "title")
      .limit(10)
      .all();
    const built = statements.splice(0);
    const http = mounted(service, { db: recording, hooks, hookData });
    const r = await http.get("/tasks?status=in.todo,doing&sort=-created_at&select=id,title&per_page=10");
    const served = statements.splice(0);
    expect(built).toHaveLength(1);
    expect(served).toHaveLength(1);
    // The HTTP handler also selects the sort keys for its next cursor (column "k", decision 1342); everything else is the same.
    const row = (s: SqlStatement) => s.text.slice(0, s.text.indexOf(" FROM ("));
    const rest = (s: SqlStatement) => s.text.slice(s.text.indexOf(' FROM "tasks" AS "t0"'));
    expect(row(served[0]).startsWith(row(built[0]))).toBe(true);
    expect(row(served[0]).slice(row(built[0]).length)).toMatch(
      /^, array_to_json\(ARRAY\[.+\]::text\[\]\)::text AS "k"$/,
    );
    expect(rest(built[0])).toBe(rest(served[0]));
    expect(rest(built[0])).toMatch(/^ FROM "tasks" AS "t0" WHERE .*status.* ORDER BY .*created_at.* DESC.* LIMIT /);
    expect(built[0].values).toEqual(served[0].values);
    expect(rows).toEqual(r.body.items);
    expect(rows).toEqual([
      { id: 2, title: "Order titanium" },
      { id: 1, title: "Design the fuel pump" },
    ]);
  });

  it("values are bind parameters, never SQL text; LIKE metacharacters are literal", async () => {
    const hostile = "'; DROP TABLE tasks; --";
    expect(await q.from("tasks").where("title", "eq", hostile).all()).toEqual([]);
    statements.length = 0;
    const pct = await q.from("tasks").where("title", "contains", "50%").select("title").all();
    expect(pct).toEqual([{ id: 3, title: "Write the 50% discount copy" }]);
    expect(statements[0].text).not.toContain("50");
    expect(statements[0].values).toContain("%50\\%%");
    expect(await q.from("tasks").count()).toBeGreaterThan(0);
  });
});

describe("clauses", () => {
  it("conditions conjoin; groups nest; dates, numerics, arrays and documents decode like URL values", async () => {
    expect(
      ids(
        await q
          .from("tasks")
          .where((w) => w.or(w("status", "eq", "todo"), w("priority", "gte", 4)))
          .all(),
      ),
    ).toEqual([4, 2]);
    expect(
      ids(await q.from("tasks").where("labels", "has", "engineering").where("estimate", "gte", "20").all()),
    ).toEqual([4]);
    expect(ids(await q.from("tasks").where("attrs", "hasdoc", { source: "jira" }).all())).toEqual([1]);
    expect(
      ids(
        await q.from("tasks").where("created_at", "gte", new Date("2026-03-03T00:00:00Z")).orderBy("created_at").all(),
      ),
    ).toEqual([3, 4]);
    expect(ids(await q.from("tasks").where("due_on", "isnull").all())).toEqual([2]);
    expect(ids(await q.from("tasks").where("id", "in", [1n, 3n]).orderBy("created_at").all())).toEqual([1, 3]);
    expect(
      ids(
        await q
          .from("tasks")
          .where((w) => w.not(w("labels", "hasany", ["engineering", "purchasing"])))
          .all(),
      ),
    ).toEqual([3]);
  });

  it("search reaches the computed summary; select narrows rows; computed only when selected", async () => {
    expect(ids(await q.from("tasks").search("NEEDS REVIEW").all())).toEqual([1]);
    const [one] = await q.from("tasks").where("id", "eq", 1).all();
    expect(one.summary).toBe("Design the fuel pump needs review");
    const narrowed = await q.from("tasks").select("title").first();
    expect(Object.keys(narrowed!)).toEqual(["id", "title"]);
  });

  it("default order is the resource's DefaultSort, then the key; offset and limit page it", async () => {
    expect(ids(await q.from("tasks").all())).toEqual([4, 3, 2, 1]);
    expect(ids(await q.from("tasks").offset(1).limit(2).all())).toEqual([3, 2]);
    expect(ids(await q.from("tasks").orderBy("priority", "-position").all())).toEqual([3, 2, 1, 4]);
  });

  it("first, count and byKey", async () => {
    expect((await q.from("tasks").orderBy("title").first())?.title).toBe("Design the fuel pump");
    expect(await q.from("tasks").limit(1).offset(3).count()).toBe(4);
    expect((await q.from("tasks").byKey(3))?.title).toBe("Write the 50% discount copy");
    expect(await q.from("tasks").select("status").byKey(1)).toEqual({ id: 1, status: "doing" });
    expect(await q.from("tasks").byKey(99)).toBeUndefined();
    // A query's own conditions still apply to byKey.
    expect(await q.from("tasks").where("status", "eq", "done").byKey(1)).toBeUndefined();
  });

  it("expansions: forward rows and capped inverse collections, under the relation's name", async () => {
    const t = await q.from("tasks").select("title").expand("list", "comments").byKey(1);
    expect(t?.list).toMatchObject({ id: 1, title: "Backlog" });
    expect(t?.comments.has_more).toBe(false);
    expect(t?.comments.items.map((c) => c.body)).toEqual(["Reviewed, two remarks.", "Pump drawings attached."]);
  });
});

describe("hooks", () => {
  it("BeforeQuery confines every query: the tenant comes from the builder's data", async () => {
    expect(ids(await q.from("tasks").all())).not.toContain(6);
    const globex = q.withData({ orgId: GLOBEX });
    expect(ids(await globex.from("tasks").all())).toEqual([6]);
    expect(await globex.from("tasks").byKey(1)).toBeUndefined();
    expect(await globex.from("tasks").count()).toBe(1);
    // The soft-deleted task 5 of Acme is never read.
    expect(await q.from("tasks").byKey(5)).toBeUndefined();
  });

  it("the hook context has the data, the executor and no HTTP context; operations list, read and expand", async () => {
    const seen: Pick<HookContext, "table" | "operation" | "data">[] = [];
    const spy: Hooks = {
      ...hooks,
      beforeQuery: Object.fromEntries(
        Object.entries(hooks.beforeQuery!).map(([table, hook]) => [
          table,
          (ctx: HookContext) => {
            expect(ctx.http).toBeUndefined();
            expect(ctx.db).toBe(db.executor);
            seen.push({ table: ctx.table, operation: ctx.operation, data: ctx.data });
            return hook(ctx);
          },
        ]),
      ),
    };
    const b = createQueryBuilder<TrackerSchema>(service, {
      db: db.executor,
      hooks: spy,
      data: { orgId: ACME, userId: "u" },
    });
    await b.from("tasks").expand("assignee").all();
    await b.from("lists").byKey(1);
    const data = { orgId: ACME, userId: "u" };
    expect(seen).toEqual([
      { table: "tasks", operation: "list", data },
      { table: "users", operation: "expand", data },
      { table: "lists", operation: "read", data },
    ]);
  });

  it("expansions are confined by the target's hook, requalified onto the join", async () => {
    const noAlan: Hooks = {
      ...hooks,
      beforeQuery: { ...hooks.beforeQuery, users: () => cmp("name", "ne", "Alan Turing") },
    };
    const b = createQueryBuilder<TrackerSchema>(service, { db: db.executor, hooks: noAlan, data: { orgId: ACME } });
    const rows = await b.from("tasks").select("assignee_id").expand("assignee").orderBy("created_at").all();
    expect(rows.map((r) => [r.id, r.assignee?.name ?? null])).toEqual([
      [1, "Ada Lovelace"],
      [2, null],
      [3, null],
      [4, "Ada Lovelace"],
    ]);
    expect(rows[2].assignee_id).not.toBeNull();
  });

  it("a raw predicate on an expanded table fails with a HookError naming the relation", async () => {
    const rawUsers: Hooks = { ...hooks, beforeQuery: { ...hooks.beforeQuery, users: () => raw`"name" <> ${"x"}` } };
    const b = createQueryBuilder<TrackerSchema>(service, { db: db.executor, hooks: rawUsers, data: { orgId: ACME } });
    expect((await b.from("users").all()).length).toBeGreaterThan(0);
    const e = await b
      .from("tasks")
      .expand("assignee")
      .all()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HookError);
    expect((e as HookError).relation).toBe("assignee");
    expect((e as HookError).table).toBe("users");
  });

  it("a table needing a BeforeQuery hook is refused without one, unless the builder is unconfined", async () => {
    const bare = createQueryBuilder<TrackerSchema>(service, { db: db.executor });
    const e = await bare
      .from("tasks")
      .all()
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(HookError);
    expect((e as Error).message).toContain("@@scoped on table tasks");
    // A table needing none is read.
    expect((await bare.from("audit_events").all()).length).toBeGreaterThan(0);
    // An expansion onto a table needing a hook is refused too.
    const partial = createQueryBuilder<TrackerSchema>(service, {
      db: db.executor,
      hooks: { beforeQuery: { tasks: hooks.beforeQuery!.tasks } },
      data: { orgId: ACME },
    });
    expect(
      await partial
        .from("tasks")
        .expand("assignee")
        .all()
        .catch((x: unknown) => x),
    ).toBeInstanceOf(HookError);
    const admin = createQueryBuilder<TrackerSchema>(service, { db: db.executor, unconfined: true });
    expect(ids(await admin.from("tasks").orderBy("created_at").all())).toEqual([5, 1, 2, 3, 4, 6]);
  });
});

describe("run-time checks for untyped callers", () => {
  it("refuses what the types rule out, as 400 problems that never name a hidden column", async () => {
    const loose = createQueryBuilder(service, { db: db.executor, hooks, data: { orgId: ACME } });
    const tasks = loose.from("tasks");
    const enumValue = problemOf(() => tasks.where("status", "eq", "nope"));
    expect(enumValue.status).toBe(400);
    expect(enumValue.errors[0]).toMatchObject({
      location: "where.status",
      allowed: ["todo", "doing", "blocked", "done"],
    });
    const hidden = problemOf(() => tasks.where("deleted_at", "isnull"));
    expect(hidden.errors[0].location).toBe("where");
    expect(hidden.errors[0].allowed).not.toContain("deleted_at");
    expect(problemOf(() => tasks.where("summary", "eq", "x")).errors[0].location).toBe("where");
    expect(problemOf(() => tasks.where("priority", "contains", "1")).errors[0].allowed).toEqual([
      "between",
      "eq",
      "gt",
      "gte",
      "in",
      "lt",
      "lte",
      "ne",
      "neq",
      "nin",
    ]);
    expect(problemOf(() => tasks.where("title", "isnull")).status).toBe(400);
    expect(problemOf(() => tasks.where("labels", "has", ["a"])).status).toBe(400);
    expect(problemOf(() => tasks.where("priority", "between", [1] as unknown as [number, number])).status).toBe(400);
    expect(problemOf(() => tasks.where("priority", "eq", 70000)).errors[0].detail).toMatch(
      /integer from -32768 to 32767/,
    );
    expect(problemOf(() => tasks.where("due_on", "eq", new Date(Number.NaN))).status).toBe(400);
    expect(problemOf(() => tasks.orderBy("labels")).errors[0].location).toBe("orderBy");
    expect(problemOf(() => loose.from("users").select("password_hash")).errors[0].allowed).not.toContain(
      "password_hash",
    );
    expect(problemOf(() => loose.from("users").expand("members")).errors[0].location).toBe("expand");
    expect(problemOf(() => loose.from("nope")).errors[0].location).toBe("from");
    expect(problemOf(() => tasks.limit(-1)).errors[0].location).toBe("limit");
    expect(problemOf(() => loose.from("task_watchers").search("x")).status).toBe(400);
    await expect(loose.from("task_watchers").byKey(1)).rejects.toBeInstanceOf(ProblemError);
    await expect(tasks.byKey("seven")).rejects.toMatchObject({ status: 400, errors: [{ location: "byKey" }] });
  });
});
