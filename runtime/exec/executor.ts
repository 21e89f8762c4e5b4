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
   * Runs a trusted multi-statement SQL script (schema DDL, a seed file) with
   * the simple query protocol; never used with request text.
   */
  script(sql: string): Promise<void>;
  /** Releases connections; the executor is unusable afterwards. */
  close(): Promise<void>;
}
