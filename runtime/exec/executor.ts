/**
 * The database seam: everything the runtime asks of PostgreSQL goes through
 * an {@link Executor}. Two adapters exist: `pg.ts` (node-postgres pool) and
 * `pglite.ts` (embedded PGlite). Statements select text columns only, so both
 * adapters return the same JavaScript values.
 */

/** A SQL statement: text with `$n` placeholders and its bind parameters (text or null, cast in SQL). */
export interface SqlStatement {
  text: string;
  values: (string | null)[];
}

/** The rows of one statement, each column as text or null. */
export interface QueryResult {
  rows: Record<string, string | null>[];
  rowCount: number;
}

/**
 * How many connections an executor holds and how long a request may wait
 * for one; the HTTP layer sizes each resource's share of the pool from it
 * (docs/decisions/0911-lock-timeout.md).
 */
export interface ExecutorLimits {
  /** Connections the executor may hold at once (the pool size). */
  capacity: number;
  /** Longest wait for a connection before the request is answered 503, in milliseconds. */
  acquireTimeoutMillis: number;
}

/**
 * Runs statements. Errors are the driver's (with a SQLSTATE `code` when the
 * server answered); `runtime/http/db-errors.ts` maps them to problem
 * documents.
 */
export interface Executor {
  /** Runs one statement outside any transaction (or inside, on a transaction handle). */
  query(stmt: SqlStatement): Promise<QueryResult>;
  /**
   * Runs `fn` in one transaction: COMMIT when it resolves, ROLLBACK when it
   * rejects (the rejection is passed on).
   */
  transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs `fn`, which only reads, in one transaction as {@link transaction} does, on a read replica when the
   * executor routes reads to replicas (`createReplicaRouter`), so that reads needing a transaction of their
   * own (the database-role mode, docs/decisions/1368-database-row-level-security.md) still go to replicas.
   * Absent: `transaction` is used.
   */
  readTransaction?<T>(fn: (tx: Executor) => Promise<T>): Promise<T>;
  /**
   * Runs a trusted multi-statement SQL script (schema DDL, a seed file) with
   * the simple query protocol; never used with request text.
   */
  script(sql: string): Promise<void>;
  /** Pool limits, for executors that hold several connections (absent: one connection, no sharing). */
  readonly limits?: ExecutorLimits;
  /**
   * Calls `onNotify` with the payload of each notification sent on
   * `channel` (LISTEN/NOTIFY), and once with none after a lost connection
   * is restored, since what was sent meanwhile is lost. Absent: the
   * executor cannot listen, and the change feed polls instead
   * (docs/decisions/1337-change-feed.md).
   */
  listen?(channel: string, onNotify: (payload?: string) => void): Promise<Listening>;
  /** Releases connections; the executor is unusable afterwards. */
  close(): Promise<void>;
}

/** A LISTEN in progress ({@link Executor.listen}); `close` stops it and releases its connection. */
export interface Listening {
  close(): Promise<void>;
}
