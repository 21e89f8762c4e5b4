import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/db.js";
import { loadPagila } from "./support/pagila.js";

describe("Pagila loader", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pagila_load");
    await loadPagila(db);
  });
  afterAll(() => db?.drop());

  it("loads every row of the shipped dump", async () => {
    const q = (text: string) => db.executor.query({ text, values: [] });
    expect((await q("select count(*)::text as n from public.film")).rows[0].n).toBe("1000");
    expect((await q("select count(*)::text as n from public.rental")).rows[0].n).toBe("16044");
    expect((await q("select count(*)::text as n from public.payment")).rows[0].n).toBe("16049");
  });
});
