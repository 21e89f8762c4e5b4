/**
 * Executor over PGlite, the embedded (WASM) PostgreSQL used by `resc dev`
 * without `--database-url` and by tests on machines with no server.
 *
 * PGlite is one connection: while a transaction is open, every other
 * statement waits for it to end. Code that runs inside a transaction and
 * queries the executor it closed over (a hook, an action's implementation,
 * an application's helper) would wait on its own transaction for ever, and
 * every later request behind it. So a statement or transaction begun from
 * within a transaction's own work (its asynchronous context) joins that
 * transaction, a nested transaction as a savepoint; statements from
 * anywhere else wait their turn as before
 * (docs/decisions/1360-idempotency-scope.md).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";

type Queryable = Pick<PGlite, "query" | "exec"> | Pick<Transaction, "query" | "exec">;

/** The transaction whose work is running, while it is open. */
interface OpenTransaction {
  handle: Queryable;
  open: boolean;
}

let savepoints = 0;

async function run(h: Queryable, stmt: SqlStatement): Promise<QueryResult> {
  const r = await h.query<Record<string, string | null>>(stmt.text, stmt.values);
  return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
}

/**
 * Runs `fn` in a savepoint of the open transaction `h`: its failure undoes
 * its own statements only. For `transaction()` of the executor itself called
 * from within an open transaction's work, which on a server would take a
 * connection of its own.
 */
async function nested<T>(h: Queryable, fn: (tx: Executor) => Promise<T>): Promise<T> {
  const name = `resc_nested_${++savepoints}`;
  await h.exec(`SAVEPOINT ${name}`);
  try {
    const out = await fn(onHandle(h));
    await h.exec(`RELEASE SAVEPOINT ${name}`);
    return out;
  } catch (e) {
    await h.exec(`ROLLBACK TO SAVEPOINT ${name}`);
    throw e;
  }
}

function onHandle(h: Queryable): Executor {
  return {
    query: (stmt) => run(h, stmt),
    // As on a pg transaction handle (pg.ts): code written against the embedded database must run on a server too.
    transaction: () => {
      throw new Error("nested transactions are not supported");
    },
    async script(sql: string) {
      await h.exec(sql);
    },
    close: async () => {},
  };
}

/**
 * Wraps an open PGlite instance. PGlite serializes statements itself, so one
 * instance serves concurrent requests; `close()` closes the instance. A
 * statement sent to the returned executor from within the work of one of its
 * own open transactions runs in that transaction (see the module comment).
 */
export function createPgliteExecutor(db: PGlite): Executor {
  const current = new AsyncLocalStorage<OpenTransaction>();
  const here = (): Queryable => {
    const t = current.getStore();
    return t?.open ? t.handle : db;
  };
  return {
    query: (stmt) => run(here(), stmt),
    async script(sql: string) {
      await here().exec(sql);
    },
    transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      const t = current.getStore();
      if (t?.open) return nested(t.handle, fn);
      return db.transaction(async (tx) => {
        const open: OpenTransaction = { handle: tx, open: true };
        try {
          return await current.run(open, () => fn(onHandle(tx)));
        } finally {
          // Work the transaction left running (a timer, a promise not awaited) waits its turn from now on.
          open.open = false;
        }
      });
    },
    async listen(channel: string, onNotify: (payload?: string) => void) {
      const stop = await db.listen(channel, (payload) => onNotify(payload));
      return { close: () => stop() };
    },
    close: () => db.close(),
  };
}
