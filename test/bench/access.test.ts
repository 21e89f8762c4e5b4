/**
 * `npm run bench:access` compares like with like (bench/access-service.ts):
 * the declared rule, the hand-written hook and no rule answer the bench's
 * principal with the same rows (an SQL oracle's), the two rules hide another
 * org's ticket while the no-rule server does not, and the token part
 * (bench/access-jwt.ts) runs with every token answering what the request
 * without one answers and the key set fetched only before the passes.
 * Correctness only; nothing here is timed. On PostgreSQL only: the app
 * `resc serve` runs needs its pool.
 */
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ACCESS_SCHEMA,
  ACCESS_VARIANTS,
  BENCH_ORG,
  PAGE_QUERY,
  accessApp,
  orgId,
  seedSql,
  variantPaths,
  type AccessVariant,
} from "../../bench/access-service.js";
import { measureVerification } from "../../bench/access-jwt.js";
import { firstDifference, sameAnswer } from "../../bench/scenarios.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText, sendTo } from "../support/service.js";

let db: TestDatabase;
let executor: PgExecutor | undefined;
const apps = new Map<AccessVariant, Hono>();
const compiled = compileText(ACCESS_SCHEMA, "access.resource");
/** A ticket of the bench org, and one of another org. */
let readId = "";
let otherId = "";

beforeAll(async () => {
  db = await createTestDatabase("bench_access");
  if (db.kind !== "pg") return;
  await db.executor.script(compiled.ddl);
  // Four orgs of 200: each org has 40 open tickets of priority 3 or more, more than a page.
  await db.executor.script(seedSql(4, 200));
  const first = async (org: string): Promise<string> =>
    String(
      (await db.executor.query({ text: "SELECT id FROM tickets WHERE org_id = $1 ORDER BY id LIMIT 1", values: [org] }))
        .rows[0]!.id,
    );
  readId = await first(BENCH_ORG);
  otherId = await first(orgId(2));
  executor = createPgExecutor({ connectionString: db.url! });
  for (const v of ACCESS_VARIANTS) {
    const { app, mounted } = accessApp(v, { schema: compiled.schema, service: compiled.service, db: executor });
    expect(mounted.ok).toBe(true);
    apps.set(v, app);
  }
});

afterAll(async () => {
  await executor?.close();
  await db?.drop();
});

const get = (v: AccessVariant, path: string) => sendTo<any>(apps.get(v)!, "GET", path);

describe("bench:access: the three variants", () => {
  it("answer the bench principal's page and read with the same rows, the oracle's", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    const oracle = (
      await db.executor.query({
        text: `SELECT id FROM tickets WHERE org_id = $1 AND status = 'open' AND priority >= 3
               ORDER BY created_at DESC, id DESC LIMIT 25`,
        values: [BENCH_ORG],
      })
    ).rows.map((r) => String(r.id));
    const pages: unknown[] = [];
    const reads: unknown[] = [];
    for (const v of ACCESS_VARIANTS) {
      const paths = variantPaths(v, readId);
      const page = await get(v, paths.page);
      expect(page.status, page.text).toBe(200);
      expect(page.body.items.map((r: { id: unknown }) => String(r.id))).toEqual(oracle);
      pages.push(page.body.items);
      const read = await get(v, paths.read);
      expect(read.status, read.text).toBe(200);
      expect(read.body.org_id).toBe(BENCH_ORG);
      reads.push(read.body);
    }
    for (const xs of [pages, reads])
      for (const x of xs.slice(1)) expect(sameAnswer(xs[0], x), firstDifference(xs[0], x)).toBe(true);
  });

  it("the two rules hide another org's rows; no rule hides nothing", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    for (const v of ["declared", "hook"] as const) {
      expect((await get(v, `/tickets/${otherId}`)).status).toBe(404);
      expect((await get(v, `/tickets?org_id=eq.${orgId(2)}`)).body.items).toEqual([]);
    }
    expect((await get("none", `/tickets/${otherId}`)).status).toBe(200);
    const orgs = new Set((await get("none", `/tickets?${PAGE_QUERY}`)).body.items.map((r: any) => r.org_id));
    expect(orgs.size).toBeGreaterThan(1);
  });
});

describe("bench:access: the token part", () => {
  it("runs with each token answering as the request without one, the key set fetched before the passes only", async ({
    skip,
  }) => {
    if (db.kind !== "pg") skip();
    const report = await measureVerification({
      service: compiled.service,
      db: executor!,
      readId,
      requests: 3,
      passes: 1,
      concurrency: [1, 2],
      log: () => {},
    });
    for (const alg of ["HS256", "RS256", "ES256"]) expect(report).toMatch(new RegExp(`^\\| ${alg} `, "m"));
    // Once for each of the four authenticators on the JWK set (the app's and the one verifying alone, each with
    // the cache of verified tokens and without it), when each was made.
    expect(report).toMatch(/fetched 0 times during the passes \(4 before them/);
  }, 60_000);
});
