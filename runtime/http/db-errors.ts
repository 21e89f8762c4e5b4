/**
 * Maps database faults to problem documents (docs/http.md, "Errors"). The
 * mapping keys on SQLSTATE codes, which pg and PGlite both expose as `code`.
 * Nothing from the driver's message is echoed: it may hold SQL text, a
 * constraint name or a hidden column. An insufficient privilege (42501) is
 * a 403 when the request's database role met it
 * (docs/decisions/1368-database-row-level-security.md), a fault otherwise. Column names are only named when the
 * table shows them.
 */
import type { ColumnDescriptor, TableDescriptor } from "../descriptor.js";
import { CommitOutcomeUnknownError, POOL_EXHAUSTED_TEXT, isUnavailable, type DriverError } from "../exec/faults.js";
import { actedAs } from "../exec/identity.js";
import { ProblemError, type ProblemItem, problem } from "../problem.js";

/** `a, "b, c", lower(d)` → `["a", "\"b, c\"", "lower(d)"]`: split at the commas outside quotes and parentheses. */
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "(") depth++;
    else if (!quoted && ch === ")") depth--;
    else if (!quoted && depth === 0 && ch === ",") {
      out.push(s.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(s.slice(from).trim());
  return out;
}

/** `"userEmail"` → `userEmail` (a doubled quote is one); anything else as it is. */
function unquote(s: string): string {
  const m = /^"((?:[^"]|"")*)"$/.exec(s);
  return m ? m[1].replace(/""/g, '"') : s;
}

/**
 * The columns and values a PostgreSQL error detail names, such as
 * `Key (a, b)=(1, 2) already exists.` (unique and foreign-key violations),
 * or undefined when it names none. A quoted name (`"userEmail"`) is
 * unquoted; an expression of an expression index (`lower("userEmail")`) is
 * kept as written. Values are PostgreSQL's text forms; with several columns
 * they are split at `, ` (a value holding one is not told apart).
 */
export function detailKey(detail: unknown): { columns: string[]; values: string[] } | undefined {
  if (typeof detail !== "string" || !detail.startsWith("Key (")) return undefined;
  // The key list ends at the parenthesis that closes the one after `Key`, outside quotes.
  let depth = 0;
  let quoted = false;
  let end = -1;
  for (let i = 4; i < detail.length && end < 0; i++) {
    const ch = detail[i];
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === "(") depth++;
    else if (!quoted && ch === ")" && --depth === 0) end = i;
  }
  if (end < 0) return undefined;
  const m = /^=\((.*)\)/s.exec(detail.slice(end + 1));
  if (!m) return undefined;
  const columns = splitTopLevel(detail.slice(5, end)).map(unquote);
  return { columns, values: columns.length === 1 ? [m[1]] : m[1].split(", ") };
}

/**
 * The columns of `table` a key of an error's detail stands for: the column it names (by database name, then API
 * name), or for an expression (`lower("userEmail")`) every column whose database name it uses; undefined when
 * it uses none.
 */
function columnsOfKey(table: TableDescriptor, key: string): ColumnDescriptor[] | undefined {
  const own =
    table.columns.find((col) => (col.dbName ?? col.name) === key) ?? table.columns.find((col) => col.name === key);
  if (own) return [own];
  const used = new Set(
    [...key.matchAll(/"((?:[^"]|"")*)"|([A-Za-z_][A-Za-z0-9_$]*)/g)].map((m) => m[1]?.replace(/""/g, '"') ?? m[2]),
  );
  const found = table.columns.filter((col) => used.has(col.dbName ?? col.name));
  return found.length > 0 ? found : undefined;
}

/**
 * The columns a unique or foreign-key violation is about: those of the violated constraint or index by its
 * name (`err.constraint`, from the descriptor's `constraints`), else those PostgreSQL's detail names, an
 * expression index's by the columns its expression uses. Empty when neither tells (docs/decisions/0312).
 */
function violatedColumns(table: TableDescriptor | undefined, err: DriverError): ColumnDescriptor[] {
  if (!table) return [];
  const byName = typeof err.constraint === "string" ? table.constraints?.[err.constraint] : undefined;
  if (byName) {
    const cols = byName.map((n) => table.columns.find((col) => col.name === n));
    if (cols.every((c) => c !== undefined)) return cols as ColumnDescriptor[];
  }
  const keys = detailKey(err.detail)?.columns ?? [];
  const found: ColumnDescriptor[] = [];
  for (const key of keys) {
    const cols = columnsOfKey(table, key);
    if (!cols) return [];
    for (const c of cols) if (!found.includes(c)) found.push(c);
  }
  return found;
}

/** Body locations for `cols`, named as the API names them; any hidden one makes the list empty. */
function locations(cols: readonly ColumnDescriptor[], detail: string): ProblemItem[] {
  if (cols.some((col) => col.hidden)) return [];
  return cols.map((col) => ({ location: `body.${col.name}`, detail }));
}

/**
 * Body locations for columns the table shows, named as the API names them
 * (PostgreSQL's detail names a mapped column by its database name); any
 * hidden or unknown column makes the list empty.
 */
function visibleLocations(table: TableDescriptor | undefined, cols: string[], detail: string): ProblemItem[] {
  if (!table || cols.length === 0) return [];
  const found = cols.map(
    (c) => table.columns.find((col) => (col.dbName ?? col.name) === c) ?? table.columns.find((col) => col.name === c),
  );
  if (found.some((col) => col === undefined)) return [];
  return locations(found as ColumnDescriptor[], detail);
}

/**
 * The 409 of a unique value already taken (SQLSTATE 23505), located at the
 * key's columns when the table shows them all. It never holds the stored
 * row's values nor says whose row it is: a key another tenant holds is
 * answered as one of the caller's own (docs/decisions/1367-access-rules.md).
 * An upsert's merge onto a row out of the caller's reach answers the same.
 * @param columns the key's columns, as PostgreSQL's detail or the upsert's target names them
 */
export function uniqueViolation(table: TableDescriptor | undefined, columns: string[]): ProblemError {
  return conflict(visibleLocations(table, columns, TAKEN));
}

const TAKEN = "this value is already taken";

/** The 409 `conflict` document, at `errors`. */
function conflict(errors: ProblemItem[]): ProblemError {
  return problem("conflict", "A row with the same unique value already exists.", errors);
}

/**
 * The column a check violation is about, when the error tells: the name PostgreSQL gives a column's own
 * CHECK when it is not named (`<table>_<column>_check`, as `resc sql` writes it). Undefined for a named
 * constraint or a domain's check (the descriptor does not say which columns a domain types).
 */
function checkedColumn(table: TableDescriptor | undefined, err: DriverError): string | undefined {
  if (!table) return undefined;
  const tableName = table.dbName ?? table.name;
  if (typeof err.constraint === "string") {
    const own = table.columns.find((c) => `${tableName}_${c.dbName ?? c.name}_check` === err.constraint);
    if (own) return own.name;
  }
  return undefined;
}

/**
 * The 503 for a database fault, telling "the database is down or went
 * away" from "the database is up but has no connection for us" (too many
 * clients, 53300; or every pooled connection busy past the timeout), as
 * operators act differently on each (docs/decisions/0910-connection-faults.md).
 */
function unavailable(e: unknown): ProblemError {
  const err = e as DriverError;
  const code = typeof err?.code === "string" ? err.code : "";
  const busy =
    code === "53300" || (code === "" && typeof err?.message === "string" && POOL_EXHAUSTED_TEXT.test(err.message));
  const p = busy
    ? problem("database-busy", "The database has no free connection for this service right now; try again shortly.")
    : problem("database-unavailable", "The database is not reachable right now; try again shortly.");
  p.retryAfterSeconds = busy ? 1 : 2;
  return p;
}

/**
 * The 503 for a statement that waited longer than `lock_timeout` (55P03):
 * another session holds a lock the request needs. The resource is named so
 * a client can tell one locked resource from a database outage
 * (docs/decisions/0911-lock-timeout.md).
 */
function locked(table: TableDescriptor | undefined): ProblemError {
  const where = table?.resource ? ` ${table.resource.path}` : "";
  const p = problem(
    "lock-timeout",
    `The resource${where} is locked by another operation on the database; try again shortly.`,
  );
  p.retryAfterSeconds = 1;
  return p;
}

/** PostgreSQL's message for a row a write would store outside a row-level security policy (SQLSTATE 42501). */
const POLICY_VIOLATION = /^new row violates row-level security policy/;

/**
 * The 403 for an insufficient privilege (42501) raised while acting as a
 * request's database role (docs/decisions/1368-database-row-level-security.md):
 * a row the write would store outside the table's row-level security
 * policies, or an operation the role has no privilege for. It names neither
 * the policy, the table nor any SQL.
 */
function databaseRefusal(err: DriverError): ProblemError {
  if (typeof err.message === "string" && POLICY_VIOLATION.test(err.message))
    return problem("forbidden", "The row this write would store is outside what your role may write.", [
      { location: "body", detail: "the database's row-level security refuses this row" },
    ]);
  return problem("forbidden", "Your role may not do this.", [
    { location: "request", detail: "the database does not grant it to your role" },
  ]);
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
  if (e instanceof CommitOutcomeUnknownError)
    return problem(
      "outcome-unknown",
      "The connection to the database was lost while the write was committing: it may or may not be stored. Repeat it only with the same Idempotency-Key, or read before writing again.",
    );
  if (isUnavailable(e)) return unavailable(e);
  const err = e as DriverError;
  const code = typeof err?.code === "string" ? err.code : "";
  switch (code) {
    case "55P03":
      return locked(table);
    case "23505":
      return conflict(locations(violatedColumns(table, err), TAKEN));
    case "23503":
      return problem(
        "reference-violation",
        "The row refers to a row that does not exist, or is still referred to by other rows.",
        locations(violatedColumns(table, err), "no such referenced row, or still referenced"),
      );
    case "23502": {
      // Named when the table shows the column; a hidden one is said to be hidden, never named.
      const column = typeof err.column === "string" ? err.column : undefined;
      const shown = column !== undefined && table?.columns.some((c) => c.name === column && !c.hidden) === true;
      const detail = shown
        ? `The column ${column} requires a value; none was given and it has no default.`
        : column !== undefined && table !== undefined
          ? "A hidden column requires a value that neither the request nor a hook supplied."
          : "A required value is missing.";
      return problem(
        "not-null-violation",
        detail,
        visibleLocations(table, column !== undefined ? [column] : [], "must not be null"),
      );
    }
    case "23514": {
      const column = checkedColumn(table, err);
      if (column === undefined) return problem("check-violation", "A value breaks a rule of the table.");
      const shown = table!.columns.some((c) => c.name === column && !c.hidden);
      return problem(
        "check-violation",
        shown ? `The value of ${column} breaks a rule of its column.` : "A hidden column's value breaks a rule.",
        visibleLocations(table, [column], "breaks the column's check"),
      );
    }
    case "23P01":
      return problem("check-violation", "A value breaks a rule of the table.");
    case "42501":
      // Insufficient privilege under the request's database role (decision 1368): PostgreSQL's grants or its
      // row-level security refused the caller, a 403 as the declared rules' refusals are (decision 1367). The
      // service's own role lacking a privilege is the deployment's fault: a 500, below.
      if (actedAs(e) !== undefined) return databaseRefusal(err);
      break;
    case "57014":
      return problem("statement-timeout", "The query took too long and was cancelled.");
    case "40001":
    case "40P01": {
      const p = problem("retry", "The request conflicted with a concurrent one; try again.");
      p.retryAfterSeconds = 0;
      return p;
    }
  }
  if (code.startsWith("22")) {
    return problem("invalid-value", "A value is not valid for its column.");
  }
  if (code.startsWith("54")) {
    // Program limit exceeded (a statement too complex, a value nested too deeply): the request
    // caused it, so it is the client's to simplify (docs/decisions/0901-json-document-depth.md).
    return problem("too-complex", "The request is too large or too deeply nested for the database.");
  }
  return problem("internal", "The request could not be completed.");
}
