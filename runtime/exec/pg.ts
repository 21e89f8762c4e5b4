/**
 * Executor over node-postgres (`pg`): a pool against a real PostgreSQL.
 */
import pg from "pg";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";

/** Options of {@link createPgExecutor}. Times are milliseconds. */
export interface PgExecutorOptions {
  connectionString: string;
  /** Pool size; default 10. */
  max?: number;
  /** How long to wait for a connection before failing (answered as 503); default 5000. */
  connectionTimeoutMillis?: number;
  /** Server-side statement timeout (answered as 504); default 30000; 0 disables. */
  statementTimeoutMillis?: number;
}

/** A running pg executor; `pool` is exposed for applications that share it. */
export interface PgExecutor extends Executor {
  readonly pool: pg.Pool;
}

function toResult(r: pg.QueryResult): QueryResult {
  return { rows: r.rows as Record<string, string | null>[], rowCount: r.rowCount ?? r.rows.length };
}

function onClient(client: pg.PoolClient | pg.Pool): Executor {
  return {
    async query(stmt: SqlStatement) {
      return toResult(await client.query({ text: stmt.text, values: stmt.values }));
    },
    transaction: () => {
      throw new Error("nested transactions are not supported");
    },
    async script(sql: string) {
      await client.query(sql);
    },
    close: async () => {},
  };
}

/**
 * Creates a pooled executor. Connection errors of idle clients are absorbed
 * (logged by the pool owner), so a database restart never crashes the
 * process; the next request reconnects.
 */
export function createPgExecutor(options: PgExecutorOptions): PgExecutor {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
    statement_timeout: options.statementTimeoutMillis ?? 30000,
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool discards it.
  });
  const base = onClient(pool);
  return {
    pool,
    query: base.query,
    async script(sql: string) {
      // A dedicated client, so session settings a script makes (search_path) stay with it.
      const client = await pool.connect();
      try {
        await client.query(sql);
      } finally {
        client.release(true);
      }
    },
    async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("BEGIN");
        const out = await fn(onClient(client));
        await client.query("COMMIT");
        return out;
      } catch (e) {
        try {
          await client.query("ROLLBACK");
        } catch {
          broken = true;
        }
        throw e;
      } finally {
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
