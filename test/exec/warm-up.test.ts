/**
 * `PgExecutor.warmUp()` opens the pool's connections before a server says
 * it is ready (docs/decisions/0912-fault-log.md, bench/first-seconds.md), and never rejects.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { createTestDatabase } from "../support/db.js";

const db = await createTestDatabase("warmup");
afterAll(() => db.drop());

describe.skipIf(db.kind !== "pg")("warmUp", () => {
  it("opens the pool's connections and leaves them idle", async () => {
    const exec = createPgExecutor({ connectionString: db.url!, max: 4 });
    try {
      expect(exec.pool.totalCount).toBe(0);
      expect(await exec.warmUp()).toBe(4);
      expect(exec.pool.totalCount).toBe(4);
      expect(exec.pool.idleCount).toBe(4);
      expect(await exec.warmUp(2)).toBe(2);
      expect(exec.pool.totalCount).toBe(4);
    } finally {
      await exec.close();
    }
  });

  it("resolves with 0 when the database cannot be reached", async () => {
    const exec = createPgExecutor({
      connectionString: "postgres://postgres@127.0.0.1:1/none",
      max: 2,
      connectionTimeoutMillis: 500,
    });
    try {
      expect(await exec.warmUp()).toBe(0);
    } finally {
      await exec.close();
    }
  });
});
