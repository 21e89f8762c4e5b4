/**
 * The reference schema's OpenAPI document against the running service
 * (spec.resource's DDL and examples/tracker/seed.sql), without its access
 * model (test/support/ungoverned.ts), with BeforeQuery hooks confining every
 * scoped table to one org and hiding soft-deleted tasks, as its access
 * blocks do.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitOpenApi } from "../../compiler/index.js";
import { and, cmp } from "../../runtime/predicate.js";
import type { Hooks } from "../../runtime/hooks.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText, serviceClient } from "../support/service.js";
import { ungovernedSpecText } from "../support/ungoverned.js";
import { conformanceSuite, ResponseChecker, type LiveService } from "./conformance.js";
import { withDeclaredActions } from "../support/actions.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ORG = "00000000-0000-4000-8000-000000000001";
const USER = "00000000-0000-4000-8000-000000000101";

/** Every scoped table confined to one org; soft-deleted tasks hidden. */
const trackerHooks: Hooks = {
  beforeQuery: {
    orgs: () => cmp("id", "eq", ORG),
    users: () => cmp("org_id", "eq", ORG),
    lists: () => cmp("org_id", "eq", ORG),
    tasks: () => and(cmp("org_id", "eq", ORG), cmp("deleted_at", "isnull")),
    task_watchers: () => cmp("org_id", "eq", ORG),
    comments: () => cmp("org_id", "eq", ORG),
  },
  beforeCreate: {
    lists: (_, values) => ({ ...values, org_id: ORG }),
    tasks: (_, values) => ({ ...values, org_id: ORG }),
    comments: (_, values) => ({ ...values, org_id: ORG, author_id: USER }),
  },
};

let db: TestDatabase;
let live: LiveService;

beforeAll(async () => {
  const { schema, service, ddl } = compileText(ungovernedSpecText(), "spec.resource");
  db = await createTestDatabase("openapi_tracker");
  await db.executor.script(ddl);
  await db.executor.script(await readFile(path.join(ROOT, "examples/tracker/seed.sql"), "utf8"));
  live = {
    doc: emitOpenApi(schema),
    service,
    client: serviceClient(service, db.executor, withDeclaredActions(service, trackerHooks)),
  };
});
afterAll(async () => {
  await db?.drop();
});

conformanceSuite("spec.resource", () => live);

describe("spec.resource: writes answer what the document says", () => {
  it("creates, updates and deletes with bodies of the documented shapes", async () => {
    const checker = new ResponseChecker(live.doc);
    const sent: [method: "post" | "patch" | "delete", template: string, url: string, body?: unknown][] = [];
    const send = async (method: "post" | "patch" | "delete", template: string, url: string, body?: unknown) => {
      sent.push([method, template, url, body]);
      const a = await live.client.request(method.toUpperCase(), url, body);
      expect(checker.check(method, template, a), `${method} ${url}`).toEqual([]);
      return a;
    };
    const list = await send("post", "/lists", "/lists", { title: "Documented", position: 9, color: "#123456" });
    expect(list.status).toBe(201);
    const listId = (list.body as { id: number }).id;
    expect(list.headers.get("location")).toBe(`/lists/${listId}`);
    const task = await send("post", "/tasks", "/tasks", {
      list_id: listId,
      title: "Described",
      labels: ["docs"],
      attrs: { note: "from the OpenAPI test" },
      estimate: 2.5,
      due_on: "2026-05-01",
      status: "doing",
      priority: 2,
    });
    expect(task.status).toBe(201);
    const taskId = (task.body as { id: number }).id;
    expect(task.body).toMatchObject({ estimate: "2.50", due_on: "2026-05-01T00:00:00Z", org_id: ORG });
    const comment = await send("post", "/comments", "/comments", { task_id: taskId, body: "Looks right." });
    expect(comment.status).toBe(201);
    expect((await send("patch", "/tasks/{id}", `/tasks/${taskId}`, { estimate: "3", due_on: null })).status).toBe(200);
    expect((await send("patch", "/lists/{id}", `/lists/${listId}`, { color: null })).status).toBe(200);
    expect((await send("post", "/tasks", "/tasks", { list_id: listId, title: "x", labels: [], id: "x" })).status).toBe(
      400,
    );
    expect((await send("post", "/lists", "/lists", { title: "Documented", position: 1 })).status).toBe(409);
    expect((await send("post", "/comments", "/comments", { task_id: 999999, body: "orphan" })).status).toBe(422);
    const commentId = (comment.body as { id: string }).id;
    expect((await send("delete", "/comments/{id}", `/comments/${commentId}`)).status).toBe(204);
    expect((await send("delete", "/tasks/{id}", `/tasks/${taskId}`)).status).toBe(204);
    // A list no task refers to (a deleted task may be kept, soft-deleted).
    const empty = await send("post", "/lists", "/lists", { title: "Empty", position: 10 });
    expect((await send("delete", "/lists/{id}", `/lists/${(empty.body as { id: number }).id}`)).status).toBe(204);
    expect(sent.length).toBe(12);
  });
});
