import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import process from "node:process";
import { test } from "node:test";
import { mountsStopped } from "resc/runtime";
import { createApp, openDatabase } from "../app.js";

test("creates a note and lists it; refuses one without a title", async () => {
  delete process.env.DATABASE_URL;
  const dir = await mkdtemp(path.join(os.tmpdir(), "notes-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  // Stopped before the database closes: the change feed and webhook delivery end first (as server.ts does).
  const stopping = new AbortController();
  try {
    const app = createApp(db, stopping.signal);
    const created = await app.request("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "first" }),
    });
    assert.equal(created.status, 201);
    const page = (await (await app.request("/notes?title=eq.first")).json()) as { items: { title: string }[] };
    assert.deepEqual(page.items.map((n) => n.title), ["first"]);
    const refused = await app.request("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: " " }),
    });
    assert.equal(refused.status, 422);
  } finally {
    stopping.abort();
    await mountsStopped(stopping.signal);
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
