/**
 * The drift gate on the project's own Pagila (docs/pagila-mapping.md): the
 * shipped dump plus the fixture's setup matches
 * `fixtures/pagila/pagila.resource` exactly, through `resc check
 * --database-url` as a user runs it. The dump keeps what the language
 * cannot say (the `film_fulltext_trigger`, views, functions, foreign keys
 * on each partition of `payment`), none of which is drift.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftSteps } from "../../catalog/index.js";
import { compileSource } from "../../compiler/index.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { loadPagila } from "../support/pagila.js";
import { runNode } from "../support/run.js";
import { PAGILA_EXTRA_SQL, PAGILA_RESOURCE } from "./setup.js";
import { readFile } from "node:fs/promises";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
let db: TestDatabase | undefined;

beforeAll(async () => {
  if (!server) return;
  db = await createTestDatabase("pagila_drift");
  await loadPagila(db, PAGILA_EXTRA_SQL);
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

describe.skipIf(!server)("the drift gate on Pagila", () => {
  it("finds nothing between the shipped database (with the fixture's setup) and the fixture", async () => {
    const schema = compileSource(await readFile(PAGILA_RESOURCE, "utf8"), PAGILA_RESOURCE).schema;
    expect((await driftSteps(db!.executor, schema)).map((s) => s.sql)).toEqual([]);
    const r = await runNode([path.resolve("bin/resc.js"), "check", PAGILA_RESOURCE, "--database-url", db!.url!], {
      timeout: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).toMatch(/the database matches the schema/);
  });

  it("reports a foreign key one partition lacks: the relation would not hold for its rows", async () => {
    await db!.executor.script("ALTER TABLE public.payment_p2022_07 DROP CONSTRAINT payment_p2022_07_staff_id_fkey");
    try {
      const schema = compileSource(await readFile(PAGILA_RESOURCE, "utf8"), PAGILA_RESOURCE).schema;
      expect((await driftSteps(db!.executor, schema)).map((s) => s.sql)).toEqual([
        'ALTER TABLE "payment" ADD CONSTRAINT "payment_staff_id_fkey" FOREIGN KEY (staff_id) REFERENCES staff(staff_id);',
      ]);
    } finally {
      await db!.executor.script(
        "ALTER TABLE public.payment_p2022_07 ADD CONSTRAINT payment_p2022_07_staff_id_fkey FOREIGN KEY (staff_id) REFERENCES public.staff (staff_id)",
      );
    }
  });
});
