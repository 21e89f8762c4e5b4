/**
 * A transaction's own work joins it, on every executor
 * (docs/decisions/1366-own-work-joins-its-transaction.md). Code that runs
 * inside a transaction (a hook, an action's implementation, an
 * application's helper) often queries the executor it closed over rather
 * than the handle it was given. On the embedded database (one connection)
 * that statement would wait for its own transaction for ever; on a pool it
 * takes a second connection, so as many concurrent keyed writes as the pool
 * has connections each wait for one more, and it does not see the writes
 * of the transaction it is part of. So both executors keep the open
 * transaction in an `AsyncLocalStorage`: a statement sent from within its
 * work runs on it, and a nested `transaction()` is a savepoint. Work the
 * transaction leaves running after it ends (a timer, a promise not
 * awaited) goes to the executor as any other statement.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Executor } from "./executor.js";

/** The transaction whose work is running, while it is open. */
interface Open {
  tx: Executor;
  /** Runs a statement of the savepoint protocol on the transaction's connection. */
  control(sql: string): Promise<void>;
  open: boolean;
}

let savepoints = 0;

/** Where each executor keeps the transaction whose work is running. */
export class OwnWork {
  private readonly current = new AsyncLocalStorage<Open>();

  /** The open transaction's handle when called from within its work, else undefined. */
  joined(): Executor | undefined {
    const t = this.current.getStore();
    return t?.open ? t.tx : undefined;
  }

  /**
   * Runs `fn(tx)` as the work of the transaction `tx` has just begun: what it sends to the executor, directly
   * or from code it calls, joins `tx` until `fn` settles.
   * @param control runs SAVEPOINT / RELEASE / ROLLBACK TO on the transaction's connection
   */
  async run<T>(tx: Executor, control: (sql: string) => Promise<void>, fn: (tx: Executor) => Promise<T>): Promise<T> {
    const open: Open = { tx, control, open: true };
    try {
      return await this.current.run(open, () => fn(tx));
    } finally {
      open.open = false;
    }
  }

  /**
   * Runs `fn` in a savepoint of the open transaction when called from within its work: its failure undoes its
   * own statements only, as a transaction of its own would; undefined when no transaction is open here.
   */
  nested<T>(fn: (tx: Executor) => Promise<T>): Promise<T> | undefined {
    const t = this.current.getStore();
    if (!t?.open) return undefined;
    return savepoint(t, fn);
  }
}

async function savepoint<T>(t: Open, fn: (tx: Executor) => Promise<T>): Promise<T> {
  const name = `resc_nested_${++savepoints}`;
  await t.control(`SAVEPOINT ${name}`);
  try {
    const out = await fn(t.tx);
    await t.control(`RELEASE SAVEPOINT ${name}`);
    return out;
  } catch (e) {
    await t.control(`ROLLBACK TO SAVEPOINT ${name}`);
    throw e;
  }
}
