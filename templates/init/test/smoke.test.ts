/**
 * The service answers: every collection the schema lists is served (or, while
 * a hook it requires is not written yet, answers 501 naming it), and so is
 * the API description. On an embedded database of its own, so it never
 * touches your data. With an `auth` block, each collection is listed twice:
 * with the development token the README's `npm run token` command mints (the
 * role and the claims the schema requires, test/tokens.ts), a 200 where an
 * access block grants that role `list`, else a 403; and without a token, a
 * 200 where the schema's `anonymous` role is granted `list`, else a 401.
 * When the schema's tokens are not HS* (`resc token` mints none), only the
 * requests without a token are made.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { developmentTokenArguments, mountsStopped } from "resc/runtime";
import { createApp, openDatabase } from "../app.js";
import { service } from "../generated/app/index.js";
import { bearer, isolate } from "./tokens.js";

/** A table of the service. */
type Table = (typeof service.tables)[number];

/** A way of calling: its headers and the status a listed collection answers. */
interface Caller {
  name: string;
  headers: Record<string, string>;
  expected: (table: Table) => number;
}

/** Whether an access block of `table` grants `role` the `list` operation. */
function listing(table: Table, role: string | undefined): boolean {
  return role !== undefined && (table.access ?? []).some((a) => a.ops.includes("list") && a.roles.includes(role));
}

/** The callers of the smoke requests: without an `auth` block, one without a token; else a token's and none's. */
async function callers(): Promise<Caller[]> {
  const auth = service.auth;
  if (!auth) return [{ name: "", headers: {}, expected: () => 200 }];
  const anonymous: Caller = {
    name: " without a token",
    headers: {},
    expected: (t) => (listing(t, auth.anonymous) ? 200 : 401),
  };
  const jwt = auth.jwt;
  if (!jwt || jwt.secretEnv === undefined || !jwt.algorithms.every((a) => a.startsWith("HS"))) {
    // Public-key settings (or none): tokens come from the identity provider, not resc token.
    console.log("resc token mints no token for this schema: collections are listed without one only");
    return [anonymous];
  }
  // `--sub smoke-test`, then the role and the claims the schema requires, as the README's command has them.
  const [, subject, ...rest] = developmentTokenArguments(service, "smoke-test");
  const at = rest.indexOf("--role");
  const role = at >= 0 ? rest[at + 1] : auth.defaultRole;
  const headers = await bearer(subject!, ...rest);
  return [
    { name: ` with a token of the role ${role}`, headers, expected: (t) => (listing(t, role) ? 200 : 403) },
    anonymous,
  ];
}

test("serves every listed collection and the API description", async () => {
  isolate();
  const dir = await mkdtemp(path.join(os.tmpdir(), "smoke-test-"));
  const db = await openDatabase(path.join(dir, "db"));
  // Stopped before the database closes: the change feed and webhook delivery end first (as server.ts does).
  const stopping = new AbortController();
  try {
    const app = createApp(db, stopping.signal);
    for (const caller of await callers()) {
      for (const table of service.tables) {
        if (!table.resource?.ops.list) continue;
        const what = `GET ${table.resource.path}${caller.name}`;
        const r = await app.request(table.resource.path, { headers: caller.headers });
        if (r.status === 501) {
          const problem = (await r.json()) as { type: string; detail: string };
          assert.equal(problem.type, "/problems/not-implemented", what);
          console.log(`${what}: ${problem.detail}`);
          continue;
        }
        assert.equal(r.status, caller.expected(table), `${what}: ${await r.text()}`);
      }
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
