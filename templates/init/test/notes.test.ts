import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { mountsStopped } from "resc/runtime";
import { createApp, openDatabase } from "../app.js";
import { bearer, isolate } from "./tokens.js";

test("each caller creates and lists their own notes; refuses one without a title, and a request without a token", async () => {
  isolate();
  const dir = await mkdtemp(path.join(os.tmpdir(), "notes-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  // Stopped before the database closes: the change feed and webhook delivery end first (as server.ts does).
  const stopping = new AbortController();
  try {
    const app = createApp(db, stopping.signal);
    const alice = await bearer("alice");
    const bob = await bearer("bob");
    const post = (headers: Record<string, string>, note: unknown) =>
      app.request("/notes", {
        method: "POST",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify(note),
      });
    const created = await post(alice, { title: "first" });
    assert.equal(created.status, 201);
    const note = (await created.json()) as { id: number; owner: string };
    assert.equal(note.owner, "alice");
    const page = (await (await app.request("/notes?title=eq.first", { headers: alice })).json()) as {
      items: { title: string }[];
    };
    assert.deepEqual(
      page.items.map((n) => n.title),
      ["first"],
    );
    assert.equal((await post(alice, { title: " " })).status, 422);

    // Bob sees none of alice's notes: not in his list, and a 404 by its id.
    const bobs = (await (await app.request("/notes", { headers: bob })).json()) as { items: unknown[] };
    assert.deepEqual(bobs.items, []);
    assert.equal((await app.request(`/notes/${note.id}`, { headers: bob })).status, 404);

    // No token: 401, asking for one.
    const anonymous = await app.request("/notes");
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get("www-authenticate") ?? "", /^Bearer/);
    assert.equal((await post({}, { title: "nobody's" })).status, 401);
  } finally {
    stopping.abort();
    await mountsStopped(stopping.signal);
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
});
