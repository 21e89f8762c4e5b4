/**
 * The service answers: every collection the schema lists is served (or, while
 * a hook it requires is not written yet, answers 501 naming it), and so is
 * the API description. On an embedded database of its own, so it never
 * touches your data.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { test } from "node:test";
import { mountsStopped } from "resc/runtime";
import { createApp, openDatabase } from "../app.js";
import { service } from "../generated/app/index.js";

test("serves every listed collection and the API description", async () => {
  delete process.env.DATABASE_URL;
  const dir = await mkdtemp(path.join(os.tmpdir(), "smoke-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  // Stopped before the database closes: the change feed and webhook delivery end first (as server.ts does).
  const stopping = new AbortController();
  try {
    const app = createApp(db, stopping.signal);
    for (const table of service.tables) {
      if (!table.resource?.ops.list) continue;
      const r = await app.request(table.resource.path);
      if (r.status === 501) {
        const problem = (await r.json()) as { type: string; detail: string };
        assert.equal(problem.type, "/problems/not-implemented", `GET ${table.resource.path}`);
        console.log(`GET ${table.resource.path}: ${problem.detail}`);
        continue;
      }
      assert.equal(r.status, 200, `GET ${table.resource.path}`);
    }
    assert.equal((await app.request("/openapi.json")).status, 200);
    assert.equal((await app.request("/docs")).status, 200);
  } finally {
    stopping.abort();
    await mountsStopped(stopping.signal);
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
