/**
 * Executor over PGlite, the embedded (WASM) PostgreSQL used by `resc dev`
 * without `--database-url` and by tests on machines with no server.
 *
 * PGlite is one connection: while a transaction is open, every other
 * statement waits for it to end. A statement or transaction begun from
 * within a transaction's own work joins it (runtime/exec/own-work.ts), so
 * a hook querying the executor it closed over does not wait on itself;
 * statements from anywhere else wait their turn as before.
 */
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";
import { OwnWork } from "./own-work.js";

type Queryable = Pick<PGlite, "query" | "exec"> | Pick<Transaction, "query" | "exec">;

async function run(h: Queryable, stmt: SqlStatement): Promise<QueryResult> {
  const r = await h.query<Record<string, string | null>>(stmt.text, stmt.values);
  return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
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
  const work = new OwnWork();
  return {
    query: (stmt) => work.joined()?.query(stmt) ?? run(db, stmt),
    async script(sql: string) {
      await (work.joined()?.script(sql) ?? db.exec(sql));
    },
    transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      return (
        work.nested(fn) ?? db.transaction((tx) => work.run(onHandle(tx), async (sql) => void (await tx.exec(sql)), fn))
      );
    },
    async listen(channel: string, onNotify: (payload?: string) => void) {
      const stop = await db.listen(channel, (payload) => onNotify(payload));
      return { close: () => stop() };
    },
    close: () => db.close(),
  };
}
