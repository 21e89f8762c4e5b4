import { describe, expect, it } from "vitest";
import { createTestDatabase } from "./support/db.js";

describe("test database support", () => {
  it("creates a fresh, empty database and drops it", async () => {
    const db = await createTestDatabase("support");
    try {
      const r = await db.executor.query({ text: "select count(*)::text as n from pg_tables where schemaname = 'public'", values: [] });
      expect(r.rows[0].n).toBe("0");
      await db.executor.script("create table t (a int); insert into t values (1), (2);");
      const t = await db.executor.transaction((tx) => tx.query({ text: "select sum(a)::text as s from t where a > $1::int", values: ["0"] }));
      expect(t.rows[0].s).toBe("3");
    } finally {
      await db.drop();
    }
  });
});
