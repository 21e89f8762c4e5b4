/**
 * The reference application's OpenAPI document against the running service
 * (spec.resource's DDL and examples/tracker/seed.sql), with BeforeQuery
 * hooks confining every scoped table to one org and hiding soft-deleted
 * tasks, as the application's own hooks do.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { emitOpenApi } from "../../compiler/index.js";
import { and, cmp } from "../../runtime/predicate.js";
import type { Hooks } from "../../runtime/hooks.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileFile, serviceClient } from "../support/service.js";
import { conformanceSuite, type LiveService } from "./conformance.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const ORG = "00000000-0000-4000-8000-000000000001";

/** Every scoped table confined to one org; soft-deleted tasks hidden. */
export const trackerHooks: Hooks = {
  beforeQuery: {
    orgs: () => cmp("id", "eq", ORG),
    users: () => cmp("org_id", "eq", ORG),
    lists: () => cmp("org_id", "eq", ORG),
    tasks: () => and(cmp("org_id", "eq", ORG), cmp("deleted_at", "isnull")),
    task_watchers: () => cmp("org_id", "eq", ORG),
    comments: () => cmp("org_id", "eq", ORG),
  },
};

let db: TestDatabase;
let live: LiveService;

beforeAll(async () => {
  const { schema, service, ddl } = await compileFile(path.join(ROOT, "spec.resource"));
  db = await createTestDatabase("openapi_tracker");
  await db.executor.script(ddl);
  await db.executor.script(await readFile(path.join(ROOT, "examples/tracker/seed.sql"), "utf8"));
  live = { doc: emitOpenApi(schema), service, client: serviceClient(service, db.executor, trackerHooks) };
});
afterAll(async () => {
  await db?.drop();
});

conformanceSuite("spec.resource", () => live);
