/**
 * A transaction's own work joins it, on both executors
 * (runtime/exec/own-work.ts, docs/decisions/1366-own-work-joins-its-transaction.md):
 * a statement sent to the executor from within one of its open
 * transactions' own work runs in that transaction (on the embedded database
 * it waited for ever; on a pool it took a second connection, did not see the
 * transaction's writes, and as many such transactions as the pool has
 * connections starved it); a `transaction()` there is a savepoint;
 * statements from elsewhere never see or join the open transaction; work a
 * transaction leaves running after it ends goes to the executor as any
 * other statement.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgExecutor } from "../../runtime/exec/pg.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { TestDatabase } from "../support/db.js";
import { databaseKinds, freshDatabase, within } from "../idempotency/support.js";

/** The pool's size on PostgreSQL: small, so a transaction that took a second connection would starve it. */
const POOL = 2;

describe.each(await databaseKinds())("the %s executor inside its own transaction", (kind) => {
  let fresh: TestDatabase;
  let db: Executor;

  beforeAll(async () => {
    fresh = await freshDatabase(kind, "own_work");
    db =
      kind === "pg"
        ? createPgExecutor({ connectionString: fresh.url!, max: POOL, connectionTimeoutMillis: 2000 })
        : fresh.executor;
    await db.script(
      'CREATE TABLE "notes" ("id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "body" text NOT NULL)',
    );
  });
  afterAll(async () => {
    if (kind === "pg") await db?.close();
    await fresh?.drop();
  });

  const bodies = async (on: Executor = db): Promise<string[]> =>
    (await on.query({ text: 'SELECT "body" FROM "notes" ORDER BY "id"', values: [] })).rows.map((r) => r.body!);
  const insert = (on: Executor, body: string) =>
    on.query({ text: 'INSERT INTO "notes" ("body") VALUES ($1)', values: [body] });

  it("runs a statement sent to the executor from within the transaction's work in that transaction", async () => {
    const seen = await within(
      db.transaction(async (tx) => {
        await insert(tx, "in tx");
        // What a hook closing over the service's executor does.
        return bodies(db);
      }),
      "a query on the executor inside its own transaction",
    );
    expect(seen).toEqual(["in tx"]);
    await db.script('TRUNCATE "notes"');
  });

  it("makes a transaction() begun there a savepoint: its failure undoes its own statements only", async () => {
    await within(
      db.transaction(async (tx) => {
        await insert(tx, "kept");
        await expect(
          db.transaction(async (inner) => {
            await insert(inner, "undone");
            throw new Error("refused");
          }),
        ).rejects.toThrow("refused");
        await db.transaction(async (inner) => void (await insert(inner, "nested and kept")));
      }),
      "a nested transaction",
    );
    expect(await bodies()).toEqual(["kept", "nested and kept"]);
    await db.script('TRUNCATE "notes"');
  });

  it("keeps statements from elsewhere out: they wait for the end and never see a rolled-back write", async () => {
    let outside: Promise<string[]> | undefined;
    let started!: () => void;
    const go = new Promise<void>((r) => (started = r));
    // Sent from outside the transaction's work, while it is open.
    const other = go.then(() => {
      outside = bodies(db);
    });
    await expect(
      db.transaction(async (tx) => {
        await insert(tx, "rolled back");
        started();
        await other;
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(await within(outside!, "the outside query")).toEqual([]);
  });

  it("lets work the transaction left running wait its turn once the transaction has ended", async () => {
    let release!: () => void;
    let late: Promise<string[]> | undefined;
    await db.transaction(async (tx) => {
      await insert(tx, "committed");
      // Started inside, run after the end: it must not use the finished transaction.
      late = new Promise<void>((r) => (release = r)).then(() => bodies(db));
    });
    release();
    expect(await within(late!, "the late query")).toEqual(["committed"]);
  });

  it("answers as many concurrent transactions as the pool has connections and more, each querying the executor", async () => {
    const n = POOL * 3;
    const seen = await within(
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          db.transaction(async (tx) => {
            await insert(tx, `concurrent ${i}`);
            const mine = await bodies(db);
            return mine.filter((b) => b === `concurrent ${i}`).length;
          }),
        ),
      ),
      "concurrent transactions querying the executor",
    );
    expect(seen).toEqual(Array.from({ length: n }, () => 1));
    await db.script('TRUNCATE "notes"');
  });
});
