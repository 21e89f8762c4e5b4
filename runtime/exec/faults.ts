/**
 * What a driver error means for the executor's callers: whether the
 * database could not be reached or went away, as pg and PGlite report it
 * (SQLSTATE `code`, Node's socket codes, pg's own messages). The replica
 * router, the readiness check and the HTTP fault mapping (runtime/http/db-errors.ts)
 * all ask this one module.
 */

/** The fields of a pg or PGlite error this module reads; any may be absent. */
export interface DriverError {
  code?: unknown;
  detail?: unknown;
  column?: unknown;
  /** The constraint a violation broke (its name in the database). */
  constraint?: unknown;
  message?: unknown;
}

/** Driver error codes and messages that mean "the database cannot be reached". */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE"]);
/**
 * pg's messages for a connection that failed or went silent: the pool's
 * connection timeout, a client's own connect timeout (`timeout expired`)
 * and the client-side query timeout (`Query read timeout`), which fires
 * only when the server stopped answering, as the statement timeout is set
 * below it (docs/decisions/0900-database-timeouts.md); and an executor
 * already closed by a stopping service (pg-pool's "after calling end",
 * PGlite's "is closed"), which a request still in flight meets: another
 * node, or this one restarted, can answer it.
 */
const UNREACHABLE_TEXT =
  /timeout expired|Query read timeout|Connection terminated|connection is closed|Client has encountered a connection error|PGlite is closed|Cannot use a pool after calling end on the pool/i;

/**
 * pg-pool's message when no pooled connection came free within the
 * connection timeout: the database is up, this process has no slot.
 */
export const POOL_EXHAUSTED_TEXT = /timeout exceeded when trying to connect/i;

/** True when the error means the database could not be reached or went away. */
export function isUnavailable(e: unknown): boolean {
  const err = e as DriverError;
  const code = typeof err?.code === "string" ? err.code : "";
  if (UNREACHABLE_CODES.has(code)) return true;
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code.startsWith("53"))
    return true;
  return (
    typeof err?.message === "string" && (UNREACHABLE_TEXT.test(err.message) || POOL_EXHAUSTED_TEXT.test(err.message))
  );
}

/**
 * SQLSTATE classes of a statement PostgreSQL refused for what it was asked
 * to compute: a cardinality violation (21), a data exception (22), a
 * routine's failure (2F, 38, 39, P0, a function a raw predicate calls), a
 * name or syntax it cannot resolve (42), a program limit (54) and a feature
 * it lacks (0A).
 */
const STATEMENT_CLASSES = new Set(["0A", "21", "22", "2F", "38", "39", "42", "54", "P0"]);

/**
 * True when PostgreSQL ran the statement and refused it for what it
 * computes (a value out of range, a division by zero, a statement timeout,
 * 57014): the same statement fails again, while others go on. False for
 * the database being away ({@link isUnavailable}), a conflict to retry, and
 * anything without a SQLSTATE: those fail whatever the statement.
 */
export function isStatementFailure(e: unknown): boolean {
  if (isUnavailable(e)) return false;
  const code = (e as DriverError)?.code;
  if (typeof code !== "string" || code.length !== 5) return false;
  return code === "57014" || STATEMENT_CLASSES.has(code.slice(0, 2));
}

/**
 * A transaction whose COMMIT lost its connection: the database may have
 * committed it or not, and nothing here can tell. It is not a failure
 * before the write began, so it must not be answered "try again": a client
 * that retries blindly may store the write twice. The HTTP layer answers it
 * as `/problems/outcome-unknown` (docs/decisions/1331-commit-outcome-unknown.md).
 */
export class CommitOutcomeUnknownError extends Error {
  constructor(cause: unknown) {
    super("the connection was lost while the transaction was committing; it may or may not have committed", {
      cause,
    });
    this.name = "CommitOutcomeUnknownError";
  }
}
