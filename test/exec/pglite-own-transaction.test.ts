/**
 * The embedded database's executor and its one connection
 * (runtime/exec/pglite.ts, docs/decisions/1360-idempotency-scope.md): a
 * statement sent to the executor from within one of its open transactions'
 * own work runs in that transaction instead of waiting for it to end (which
 * was for ever); a `transaction()` there is a savepoint; statements from
 * elsewhere still wait their turn and never see or join the open
 * transaction; work a transaction leaves running after it ends waits its
 * turn too.
 */
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { within } from "../idempotency/support.js";

let pglite: PGlite;
let db: Executor;

beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
  db = createPgliteExecutor(pglite);
  await db.script('CREATE TABLE "notes" ("id" bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "body" text NOT NULL)');
});
afterAll(() => pglite?.close());

const bodies = async (on: Executor = db): Promise<string[]> =>
  (await on.query({ text: 'SELECT "body" FROM "notes" ORDER BY "id"', values: [] })).rows.map((r) => r.body!);
const insert = (on: Executor, body: string) =>
  on.query({ text: 'INSERT INTO "notes" ("body") VALUES ($1)', values: [body] });

describe("the PGlite executor inside its own transaction", () => {
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
});
