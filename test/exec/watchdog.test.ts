/**
 * The round-trip watchdog (docs/decisions/1344-round-trip-watchdog.md): a
 * statement is cut off no sooner than the timeout and not much later, one
 * answered in time never is, and the pg executor bounds its statements with
 * it instead of node-postgres's per-query timer. The executor's behaviour
 * against a server that goes silent is tested through a proxy in
 * test/faults/database.test.ts.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import { RoundTripWatchdog, type WatchedConnection } from "../../runtime/exec/watchdog.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

/** A connection that records when it was cut off, in fake milliseconds since the test began. */
function connection(): WatchedConnection & { cutAt: number[] } {
  const start = Date.now();
  const c = {
    watchDeadline: 0,
    cutAt: [] as number[],
    cutOff() {
      c.cutAt.push(Date.now() - start);
    },
  };
  return c;
}

describe("RoundTripWatchdog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([
    [2500, 250],
    [35000, 1000],
    [30, 10],
  ])("cuts a statement of timeout %i ms off at the timeout, at most two checks (%i ms each) late", (timeout, tick) => {
    const w = new RoundTripWatchdog(timeout);
    for (const offset of [0, tick / 3, tick - 1]) {
      vi.advanceTimersByTime(offset);
      const c = connection();
      w.arm(c);
      vi.advanceTimersByTime(timeout - 1);
      expect(c.cutAt, `armed ${offset} ms into a check`).toEqual([]);
      vi.advanceTimersByTime(2 * tick + 1);
      expect(c.cutAt).toHaveLength(1);
      expect(c.cutAt[0]).toBeGreaterThanOrEqual(timeout);
      expect(c.cutAt[0]).toBeLessThanOrEqual(timeout + 2 * tick);
      expect(c.watchDeadline).toBe(0);
    }
    w.close();
  });

  it("never cuts a statement answered in time, and cuts each armed statement once", () => {
    const w = new RoundTripWatchdog(1000);
    const answered = connection();
    const silent = connection();
    for (let i = 0; i < 50; i++) {
      w.arm(answered);
      vi.advanceTimersByTime(900);
      w.disarm(answered);
    }
    w.arm(silent);
    vi.advanceTimersByTime(10_000);
    expect(answered.cutAt).toEqual([]);
    expect(silent.cutAt).toHaveLength(1);
    // Armed again after the cut (a new statement on a new connection): watched afresh.
    w.arm(silent);
    vi.advanceTimersByTime(1300);
    expect(silent.cutAt).toHaveLength(2);
    w.close();
  });

  it("stops checking when closed", () => {
    const w = new RoundTripWatchdog(100);
    const c = connection();
    w.arm(c);
    w.close();
    vi.advanceTimersByTime(10_000);
    expect(c.cutAt).toEqual([]);
  });
});

describe("pg executor round trips", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("watchdog");
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("sets no per-query timer on node-postgres, and bounds a transaction's statement itself", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    // No statement timeout on the server, so only the client-side bound can end the sleep.
    const ex = createPgExecutor({
      connectionString: db.url!,
      max: 1,
      statementTimeoutMillis: 0,
      queryTimeoutMillis: 300,
    });
    try {
      expect((ex.pool as unknown as { options: { query_timeout?: number } }).options.query_timeout).toBeUndefined();
      const started = Date.now();
      const outcome = ex.transaction((tx) => tx.query({ text: "SELECT pg_sleep(30)", values: [] }));
      await expect(outcome).rejects.toThrow(/Query read timeout/);
      const ms = Date.now() - started;
      expect(ms).toBeGreaterThanOrEqual(300);
      expect(ms).toBeLessThan(3000);
      // The cut connection was discarded; the next statement gets a fresh one.
      expect((await ex.query({ text: "SELECT 1::text AS n", values: [] })).rows).toEqual([{ n: "1" }]);
    } finally {
      await ex.close();
    }
  });
});
