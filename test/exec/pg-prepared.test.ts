/**
 * Named prepared statements on the pg executor
 * (docs/decisions/0800-prepared-statements.md): one name per statement
 * text, a bounded number of names, none when turned off, and a connection
 * lost inside a transaction is a rejection, not a crash.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { PreparedNames } from "../../runtime/exec/prepared.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

describe("PreparedNames", () => {
  it("gives equal texts one name and distinct texts distinct names", () => {
    const names = new PreparedNames(10);
    const a = names.nameOf("SELECT $1::text AS j");
    expect(a).toMatch(/^resc_[A-Za-z0-9_-]{27}$/);
    expect(names.nameOf("SELECT $1::text AS j")).toBe(a);
    expect(names.nameOf("SELECT $1::text AS k")).not.toBe(a);
  });

  it("names at most `capacity` texts and keeps naming those", () => {
    const names = new PreparedNames(2);
    const a = names.nameOf("a");
    const b = names.nameOf("b");
    expect(a && b).toBeTruthy();
    expect(names.nameOf("c")).toBeUndefined();
    expect(names.nameOf("a")).toBe(a);
    expect(names.nameOf("b")).toBe(b);
  });

  it("names nothing with capacity 0", () => {
    expect(new PreparedNames(0).nameOf("a")).toBeUndefined();
  });
});

describe("pg executor statements", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("prepared");
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Names prepared on the executor's only connection (pool of one). */
  async function preparedOn(ex: PgExecutor): Promise<string[]> {
    const r = await ex.pool.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name");
    return r.rows.map((x) => x.name);
  }

  it("prepares a statement once per connection and reuses it", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    const ex = createPgExecutor({ connectionString: db.url!, max: 1 });
    try {
      const stmt = { text: "SELECT ($1::text::integer + 1)::text AS n", values: ["41"] };
      expect((await ex.query(stmt)).rows).toEqual([{ n: "42" }]);
      expect((await ex.query({ ...stmt, values: ["1"] })).rows).toEqual([{ n: "2" }]);
      const name = new PreparedNames(1).nameOf(stmt.text)!;
      expect(await preparedOn(ex)).toEqual([name]);
      await ex.transaction(async (tx) => {
        expect((await tx.query({ ...stmt, values: ["2"] })).rows).toEqual([{ n: "3" }]);
        await tx.query({ text: "SELECT 'tx'::text AS j", values: [] });
      });
      expect(await preparedOn(ex)).toEqual([name, new PreparedNames(1).nameOf("SELECT 'tx'::text AS j")].sort());
    } finally {
      await ex.close();
    }
  });

  it("prepares nothing with maxPreparedStatements 0, and nothing beyond the bound", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    const off = createPgExecutor({ connectionString: db.url!, max: 1, maxPreparedStatements: 0 });
    const one = createPgExecutor({ connectionString: db.url!, max: 1, maxPreparedStatements: 1 });
    try {
      await off.query({ text: "SELECT '1'::text AS j", values: [] });
      expect(await preparedOn(off)).toEqual([]);
      await one.query({ text: "SELECT '1'::text AS j", values: [] });
      expect((await one.query({ text: "SELECT '2'::text AS j", values: [] })).rows).toEqual([{ j: "2" }]);
      expect(await preparedOn(one)).toHaveLength(1);
    } finally {
      await off.close();
      await one.close();
    }
  });

  it("rejects, without an unhandled error, when the connection dies inside a transaction", async ({ skip }) => {
    if (db.kind !== "pg") skip();
    const ex = createPgExecutor({ connectionString: db.url!, max: 1 });
    const admin = new pg.Client({ connectionString: db.url! });
    await admin.connect();
    try {
      const outcome = ex.transaction(async (tx) => {
        const pid = (await tx.query({ text: "SELECT pg_backend_pid()::text AS p", values: [] })).rows[0].p;
        await admin.query("SELECT pg_terminate_backend($1::int)", [pid]);
        await tx.query({ text: "SELECT 'after'::text AS j", values: [] });
      });
      await expect(outcome).rejects.toThrow();
      // The pool replaces the lost connection.
      expect((await ex.query({ text: "SELECT 'again'::text AS j", values: [] })).rows).toEqual([{ j: "again" }]);
    } finally {
      await admin.end();
      await ex.close();
    }
  });
});
