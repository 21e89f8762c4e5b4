/**
 * The executor of one database identity (runtime/exec/identity.ts,
 * docs/decisions/1368-database-row-level-security.md), on PGlite: each
 * statement outside a transaction is a transaction of the identity; its own
 * work joins its transaction, a nested transaction is a savepoint that keeps
 * the identity when it rolls back; work left running after the transaction
 * gets one of its own; another identity's statement from within the
 * transaction is refused; errors carry the role they met; a read executor
 * begins with `readTransaction`.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import {
  actedAs,
  asDatabaseIdentity,
  DatabaseIdentityCrossed,
  DatabaseRoleRefused,
  type DatabaseIdentity,
} from "../../runtime/exec/identity.js";

const who = (role: string, org: string): DatabaseIdentity => ({
  role,
  claimsSetting: "request.jwt.claims",
  claims: JSON.stringify({ org, role }),
});

const SESSION = {
  text: "SELECT current_user::text AS u, current_setting('request.jwt.claims', true) AS c",
  values: [],
};

describe("asDatabaseIdentity", () => {
  let pglite: PGlite;
  let db: Executor;
  beforeAll(async () => {
    pglite = new PGlite();
    await pglite.waitReady;
    db = createPgliteExecutor(pglite);
    await db.script(`
      CREATE ROLE alpha NOLOGIN; CREATE ROLE beta NOLOGIN;
      CREATE TABLE t (n int); GRANT SELECT, INSERT ON t TO alpha;
    `);
  });
  afterAll(async () => {
    await pglite?.close();
  });

  it("runs a statement outside a transaction as the identity, and leaves the connection as it was", async () => {
    const a = asDatabaseIdentity(db, who("alpha", "a"));
    const r = await a.query(SESSION);
    expect(r.rows[0]).toEqual({ u: "alpha", c: JSON.stringify({ org: "a", role: "alpha" }) });
    const after = await db.query(SESSION);
    expect(after.rows[0]!.u).toBe("postgres");
    expect([null, ""]).toContain(after.rows[0]!.c);
  });

  it("joins its own transaction; a nested one is a savepoint that keeps the identity", async () => {
    const a = asDatabaseIdentity(db, who("alpha", "a"));
    await a.transaction(async (tx) => {
      await tx.query({ text: "INSERT INTO t VALUES (1)", values: [] });
      // Sent to the executor, not the handle: joins, so it sees the insert.
      expect((await a.query({ text: "SELECT count(*)::text AS n FROM t", values: [] })).rows[0]!.n).toBe("1");
      await expect(
        a.transaction(async (inner) => {
          await inner.query({ text: "INSERT INTO t VALUES (2)", values: [] });
          throw new Error("undo the nested one");
        }),
      ).rejects.toThrow("undo the nested one");
      expect((await a.query(SESSION)).rows[0]!.u).toBe("alpha");
      expect((await tx.query({ text: "SELECT count(*)::text AS n FROM t", values: [] })).rows[0]!.n).toBe("1");
    });
    expect((await db.query({ text: "SELECT array_agg(n)::text AS ns FROM t", values: [] })).rows[0]!.ns).toBe("{1}");
  });

  it("gives work left running after the transaction one of its own", async () => {
    const a = asDatabaseIdentity(db, who("alpha", "a"));
    let late: Promise<unknown> | undefined;
    await a.transaction(async () => {
      late = new Promise((resolve) => setTimeout(resolve, 20)).then(() => a.query(SESSION));
    });
    const r = (await late) as { rows: Record<string, string | null>[] };
    expect(r.rows[0]!.u).toBe("alpha");
  });

  it("refuses another identity's statement from within its transaction", async () => {
    const a = asDatabaseIdentity(db, who("alpha", "a"));
    const b = asDatabaseIdentity(db, who("beta", "b"));
    await expect(a.transaction(() => b.query(SESSION))).rejects.toBeInstanceOf(DatabaseIdentityCrossed);
    // One request's read and primary executors share the identity: they join.
    const id = who("alpha", "a");
    const primary = asDatabaseIdentity(db, id);
    const reads = asDatabaseIdentity(db, id, { reads: true });
    await primary.transaction(async () => {
      expect((await reads.query(SESSION)).rows[0]!.u).toBe("alpha");
    });
  });

  it("marks the errors it met with the role; a role the database refuses is DatabaseRoleRefused", async () => {
    const b = asDatabaseIdentity(db, who("beta", "b"));
    const e = await b.query({ text: "INSERT INTO t VALUES (3)", values: [] }).catch((x: unknown) => x);
    expect((e as { code?: string }).code).toBe("42501");
    expect(actedAs(e)).toBe("beta");
    expect(actedAs(await db.query({ text: "SELECT 1/0", values: [] }).catch((x: unknown) => x))).toBeUndefined();
    const ghost = asDatabaseIdentity(db, who("ghost", "g"));
    const refused = await ghost.query(SESSION).catch((x: unknown) => x);
    expect(refused).toBeInstanceOf(DatabaseRoleRefused);
    expect((refused as Error).message).toContain('"ghost"');
  });

  it("begins a read executor's transactions with readTransaction when the executor has one", async () => {
    let reads = 0;
    const routed: Executor = {
      ...db,
      readTransaction: (fn) => {
        reads++;
        return db.transaction(fn);
      },
    };
    expect((await asDatabaseIdentity(routed, who("alpha", "a"), { reads: true }).query(SESSION)).rows[0]!.u).toBe(
      "alpha",
    );
    expect(reads).toBe(1);
    await asDatabaseIdentity(routed, who("alpha", "a")).query(SESSION);
    expect(reads).toBe(1);
  });
});
