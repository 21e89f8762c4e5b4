/**
 * The service answers: every collection the schema lists is served, and so
 * is the API description. On an embedded database of its own, so it never
 * touches your data.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { test } from "node:test";
import { createApp, openDatabase } from "../app.js";
import { service } from "../generated/app/index.js";

test("serves every listed collection and the API description", async () => {
  delete process.env.DATABASE_URL;
  const dir = await mkdtemp(path.join(os.tmpdir(), "smoke-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  try {
    const app = createApp(db);
    for (const table of service.tables) {
      if (!table.resource?.ops.list) continue;
      const r = await app.request(table.resource.path);
      assert.equal(r.status, 200, `GET ${table.resource.path}`);
    }
    assert.equal((await app.request("/openapi.json")).status, 200);
    assert.equal((await app.request("/docs")).status, 200);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
