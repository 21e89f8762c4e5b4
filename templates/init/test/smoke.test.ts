/**
 * The service answers: every collection the schema lists is served (or, while
 * a hook it requires is not written yet, answers 501 naming it), and so is
 * the API description. On an embedded database of its own, so it never
 * touches your data. With an `auth` block, each request carries a development
 * token (test/tokens.ts); a collection the token's role is not granted answers
 * 403, and when `resc token` mints none for the schema, each answers 401.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { mountsStopped } from "resc/runtime";
import { createApp, openDatabase } from "../app.js";
import { service } from "../generated/app/index.js";
import { bearer, isolate } from "./tokens.js";

/** The headers of the smoke requests: a token of the default role (else the first), or none, saying why. */
async function credentials(): Promise<{ headers: Record<string, string>; refused: number[] }> {
  const auth = service.auth;
  if (!auth) return { headers: {}, refused: [] };
  const role = auth.defaultRole ?? auth.roles.find((r) => r !== auth.anonymous);
  try {
    return {
      headers: await bearer("smoke-test", ...(auth.defaultRole || !role ? [] : ["--role", role])),
      refused: [403],
    };
  } catch (e) {
    console.log(`no development token, so collections answer 401 (or 403): ${(e as Error).message}`);
    return { headers: {}, refused: [401, 403] };
  }
}

test("serves every listed collection and the API description", async () => {
  isolate();
  const dir = await mkdtemp(path.join(os.tmpdir(), "smoke-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  // Stopped before the database closes: the change feed and webhook delivery end first (as server.ts does).
  const stopping = new AbortController();
  try {
    const app = createApp(db, stopping.signal);
    const { headers, refused } = await credentials();
    for (const table of service.tables) {
      if (!table.resource?.ops.list) continue;
      const r = await app.request(table.resource.path, { headers });
      if (r.status === 501) {
        const problem = (await r.json()) as { type: string; detail: string };
        assert.equal(problem.type, "/problems/not-implemented", `GET ${table.resource.path}`);
        console.log(`GET ${table.resource.path}: ${problem.detail}`);
        continue;
      }
      if (refused.includes(r.status)) {
        console.log(`GET ${table.resource.path}: ${r.status} ${((await r.json()) as { detail: string }).detail}`);
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
