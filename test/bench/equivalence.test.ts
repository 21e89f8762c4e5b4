/**
 * The benchmark compares like with like (bench/RESULTS.md): for every scenario
 * `npm run bench` measures, and a few neighbouring requests, resc and the
 * hand-written Hono + pg server answer the same JSON. Correctness only;
 * nothing here is timed.
 */
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandwrittenApp } from "../../bench/handwritten/app.js";
import { createPool } from "../../bench/handwritten/pool.js";
import { SCENARIOS, firstDifference, getJson, sameAnswer } from "../../bench/scenarios.js";
import { createDevApp } from "../../cli/dev/app.js";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { loadPagila } from "../support/pagila.js";
import { compileFile } from "../support/service.js";
import { PAGILA_EXTRA_SQL, PAGILA_RESOURCE } from "../pagila/setup.js";
import { hooks } from "../../fixtures/pagila/hooks.js";

let db: TestDatabase;
let executor: PgExecutor | undefined;
let pool: pg.Pool | undefined;
const servers: ServerType[] = [];
let resc = "";
let hand = "";

function listen(fetch: (r: Request) => Response | Promise<Response>): Promise<string> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port: 0 }, (info: AddressInfo) =>
      resolve(`http://127.0.0.1:${info.port}`),
    );
    servers.push(server);
  });
}

beforeAll(async () => {
  db = await createTestDatabase("bench_equivalence");
  if (db.kind !== "pg") return;
  await loadPagila(db, PAGILA_EXTRA_SQL);
  const { service } = await compileFile(PAGILA_RESOURCE);
  executor = createPgExecutor({ connectionString: db.url! });
  const { app } = createDevApp(service, { db: executor, hooks });
  pool = createPool(db.url!);
  resc = await listen(app.fetch);
  hand = await listen(createHandwrittenApp(pool).fetch);
});

afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  await executor?.close();
  await pool?.end();
  await db?.drop();
});

async function expectSame(rescPath: string, handPath: string): Promise<Record<string, unknown>> {
  const a = await getJson(resc, rescPath);
  const b = await getJson(hand, handPath);
  expect(sameAnswer(a, b), `${rescPath}: ${firstDifference(a, b)}`).toBe(true);
  return a as Record<string, unknown>;
}

describe("bench: resc and the hand-written server answer the same JSON", () => {
  for (const s of SCENARIOS) {
    it(s.name, async ({ skip }) => {
      if (db.kind !== "pg") skip();
      const body = await expectSame(await s.path(resc), await s.path(hand));
      expect(JSON.stringify(body).length).toBeGreaterThan(200);
    });
  }

  it("the next keyset page after the deep one, and the deep offset page itself", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    const deep = SCENARIOS[SCENARIOS.length - 1];
    const [a, b] = await Promise.all([getJson(resc, await deep.path(resc)), getJson(hand, await deep.path(hand))]);
    const next = (x: unknown): string =>
      `/rentals?cursor=${encodeURIComponent(String((x as { next_cursor: string }).next_cursor))}`;
    const page = await expectSame(next(a), next(b));
    expect(page.page).toBe(3);
    await expectSame("/rentals?offset=12000", "/rentals?offset=12000");
  });

  it("offset pages with expansions, other sorts and page sizes", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    for (const path of [
      "/films?offset=10&per_page=5&expand=cast,language",
      "/films?page=3&per_page=7&sort=-title&rating=in.G,R",
      "/films?sort=-replacement_cost,-title&per_page=30&length=gte.100",
      "/films?language_id=eq.1&per_page=200&sort=rental_rate",
      "/films/1000",
    ]) {
      await expectSame(path, path);
    }
  });
});
