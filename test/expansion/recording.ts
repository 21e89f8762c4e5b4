/**
 * An executor that records every statement it runs, so expansion tests can
 * assert on the SQL a request compiled to (spec: Expansion rules 3 and 4:
 * an unexpanded request joins nothing; expansions share the base rows'
 * statement).
 */
import type { Executor, SqlStatement } from "../../runtime/exec/executor.js";

/** A recording wrapper and the statements it saw since the last `clear()`. */
export interface Recording {
  executor: Executor;
  statements: SqlStatement[];
  clear(): void;
}

/** Wraps `db`; every `query` is recorded before it runs. */
export function recording(db: Executor): Recording {
  const statements: SqlStatement[] = [];
  const executor: Executor = {
    query: (stmt) => {
      statements.push(stmt);
      return db.query(stmt);
    },
    transaction: (fn) => db.transaction(fn),
    script: (sql) => db.script(sql),
    close: () => db.close(),
  };
  return { executor, statements, clear: () => void statements.splice(0) };
}

/** The tables a statement reads, by the quoted names after FROM or JOIN, in order of appearance. */
export function tablesRead(stmt: SqlStatement): string[] {
  return [...stmt.text.matchAll(/\b(?:FROM|JOIN)\s+"([^"]+)"/g)].map((m) => m[1]);
}
