/**
 * Executor over node-postgres (`pg`): a pool against a real PostgreSQL.
 * Statements run as named prepared statements, one name per statement text
 * (docs/decisions/0800-prepared-statements.md).
 */
import pg from "pg";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";
import { DEFAULT_MAX_PREPARED, PreparedNames } from "./prepared.js";

/** Options of {@link createPgExecutor}. Times are milliseconds. */
export interface PgExecutorOptions {
  connectionString: string;
  /** Pool size; default 10. */
  max?: number;
  /** How long to wait for a connection before failing (answered as 503); default 5000. */
  connectionTimeoutMillis?: number;
  /** Server-side statement timeout (answered as 504); default 30000; 0 disables. */
  statementTimeoutMillis?: number;
  /**
   * Client-side limit on one statement's round trip, for a server or
   * network that stops answering without closing the connection (answered
   * as 503; the connection is discarded). Default: the statement timeout
   * plus 5000, so a merely slow statement is cut by the server first (504);
   * disabled when the statement timeout is. 0 disables
   * (docs/decisions/0900-database-timeouts.md).
   */
  queryTimeoutMillis?: number;
  /**
   * Distinct statement texts run as named prepared statements (parsed and
   * planned once per connection); default 200. Texts beyond it run unnamed.
   * 0 prepares nothing: needed behind a pooler that does not keep prepared
   * statements across transactions (PgBouncer before 1.21 in transaction mode).
   */
  maxPreparedStatements?: number;
}

/** A running pg executor; `pool` is exposed for applications that share it. */
export interface PgExecutor extends Executor {
  readonly pool: pg.Pool;
}

function toResult(r: pg.QueryResult): QueryResult {
  return { rows: r.rows as Record<string, string | null>[], rowCount: r.rowCount ?? r.rows.length };
}

function onClient(client: pg.PoolClient | pg.Pool, names: PreparedNames): Executor {
  return {
    async query(stmt: SqlStatement) {
      const name = names.nameOf(stmt.text);
      return toResult(await client.query(name ? { name, text: stmt.text, values: stmt.values } : stmt));
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
  const statementTimeout = options.statementTimeoutMillis ?? 30000;
  const queryTimeout = options.queryTimeoutMillis ?? (statementTimeout > 0 ? statementTimeout + 5000 : 0);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5000,
    statement_timeout: statementTimeout,
    query_timeout: queryTimeout > 0 ? queryTimeout : undefined,
  });
  pool.on("error", () => {
    // An idle client lost its connection; the pool discards it.
  });
  const names = new PreparedNames(options.maxPreparedStatements ?? DEFAULT_MAX_PREPARED);
  const base = onClient(pool, names);
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
      // A checked-out client has no pool listener: without this one, a connection lost
      // mid-transaction would be an unhandled 'error' event. The failed query rejects anyway.
      const onLost = (): void => {};
      client.on("error", onLost);
      let broken = false;
      try {
        await client.query("BEGIN");
        const out = await fn(onClient(client, names));
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
        client.removeListener("error", onLost);
        client.release(broken);
      }
    },
    close: () => pool.end(),
  };
}
