/**
 * Executor over PGlite, the embedded (WASM) PostgreSQL used by `resc dev`
 * without `--database-url` and by tests on machines with no server.
 */
import type { PGlite, Transaction } from "@electric-sql/pglite";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";

type Queryable = Pick<PGlite, "query" | "exec"> | Pick<Transaction, "query" | "exec">;

function onHandle(h: Queryable): Executor {
  return {
    async query(stmt: SqlStatement): Promise<QueryResult> {
      const r = await h.query<Record<string, string | null>>(stmt.text, stmt.values);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
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
 * instance serves concurrent requests; `close()` closes the instance.
 */
export function createPgliteExecutor(db: PGlite): Executor {
  const base = onHandle(db);
  return {
    query: base.query,
    script: base.script,
    transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      return db.transaction((tx) => fn(onHandle(tx)));
    },
    async listen(channel: string, onNotify: (payload?: string) => void) {
      const stop = await db.listen(channel, (payload) => onNotify(payload));
      return { close: () => stop() };
    },
    close: () => db.close(),
  };
}
