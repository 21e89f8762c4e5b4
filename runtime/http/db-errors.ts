/**
 * Maps database faults to problem documents (docs/http.md, "Errors"). The
 * mapping keys on SQLSTATE codes, which pg and PGlite both expose as `code`.
 * Nothing from the driver's message is echoed: it may hold SQL text, a
 * constraint name or a hidden column. Column names are only named when the
 * table shows them.
 */
import type { TableDescriptor } from "../descriptor.js";
import { ProblemError, type ProblemItem } from "../problem.js";

interface DriverError {
  code?: unknown;
  detail?: unknown;
  column?: unknown;
  message?: unknown;
}

/** Driver error codes and messages that mean "the database cannot be reached". */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENOTFOUND", "EPIPE"]);
/**
 * pg's messages for a connection that failed or went silent: the pool's
 * connection timeout, a client's own connect timeout (`timeout expired`)
 * and the client-side query timeout (`Query read timeout`), which fires
 * only when the server stopped answering, as the statement timeout is set
 * below it (docs/decisions/0900-database-timeouts.md).
 */
const UNREACHABLE_TEXT =
  /timeout exceeded when trying to connect|timeout expired|Query read timeout|Connection terminated|connection is closed|Client has encountered a connection error|PGlite is closed/i;

/** Columns named in a PostgreSQL error detail such as `Key (a, b)=(1, 2) already exists.` */
function keyColumns(detail: unknown): string[] {
  if (typeof detail !== "string") return [];
  const m = /^Key \(([^)]*)\)=/.exec(detail);
  return m ? m[1].split(",").map((s) => s.trim().replace(/^"|"$/g, "")) : [];
}

/** Body locations for columns the table shows; any hidden or unknown column makes the list empty. */
function visibleLocations(table: TableDescriptor | undefined, cols: string[], detail: string): ProblemItem[] {
  if (!table || cols.length === 0) return [];
  const shown = cols.every((c) => table.columns.some((col) => col.name === c && !col.hidden));
  return shown ? cols.map((c) => ({ location: `body.${c}`, detail })) : [];
}

/** True when the error means the database could not be reached or went away. */
export function isUnavailable(e: unknown): boolean {
  const err = e as DriverError;
  const code = typeof err?.code === "string" ? err.code : "";
  if (UNREACHABLE_CODES.has(code)) return true;
  if (code.startsWith("08") || code === "57P01" || code === "57P02" || code === "57P03" || code.startsWith("53"))
    return true;
  return typeof err?.message === "string" && UNREACHABLE_TEXT.test(err.message);
}

/**
 * Turns any error raised while serving a request into a {@link ProblemError}.
 * A `ProblemError` passes through; unknown faults become a 500 without
 * detail (the caller logs the original).
 *
 * @param table the table the statement wrote or read, to name visible columns
 */
export function toProblem(e: unknown, table?: TableDescriptor): ProblemError {
  if (e instanceof ProblemError) return e;
  if (isUnavailable(e)) {
    return new ProblemError(503, "database-unavailable", "The database is not reachable right now; try again shortly.");
  }
  const err = e as DriverError;
  const code = typeof err?.code === "string" ? err.code : "";
  switch (code) {
    case "23505":
      return new ProblemError(
        409,
        "conflict",
        "A row with the same unique value already exists.",
        visibleLocations(table, keyColumns(err.detail), "this value is already taken"),
      );
    case "23503":
      return new ProblemError(
        422,
        "reference-violation",
        "The row refers to a row that does not exist, or is still referred to by other rows.",
        visibleLocations(table, keyColumns(err.detail), "no such referenced row, or still referenced"),
      );
    case "23502": {
      const col = typeof err.column === "string" ? [err.column] : [];
      return new ProblemError(
        422,
        "not-null-violation",
        "A required value is missing.",
        visibleLocations(table, col, "must not be null"),
      );
    }
    case "23514":
    case "23P01":
      return new ProblemError(422, "check-violation", "A value breaks a rule of the table.");
    case "57014":
      return new ProblemError(504, "statement-timeout", "The query took too long and was cancelled.");
    case "40001":
    case "40P01":
      return new ProblemError(503, "retry", "The request conflicted with a concurrent one; try again.");
  }
  if (code.startsWith("22")) {
    return new ProblemError(400, "invalid-value", "A value is not valid for its column.");
  }
  if (code.startsWith("54")) {
    // Program limit exceeded (a statement too complex, a value nested too deeply): the request
    // caused it, so it is the client's to simplify (docs/decisions/0901-json-document-depth.md).
    return new ProblemError(400, "too-complex", "The request is too large or too deeply nested for the database.");
  }
  return new ProblemError(500, "internal", "The request could not be completed.");
}
