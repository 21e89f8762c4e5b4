/**
 * Options shared by the statements that read rows (list, read), and the
 * per-statement allocation of FROM aliases.
 */
import type { Predicate } from "../predicate.js";

/** Options of `compileList` and `compileRead`. */
export interface CompileOptions {
  /**
   * The predicate confining rows of `tableName` when that table is reached
   * through an expansion (BeforeQuery hooks, spec: Expansion rule 6), or
   * undefined for none. It is applied inside the expansion's subquery on the
   * target table; a raw predicate or a comparison qualified with another
   * table cannot be requalified there and fails the compilation with an
   * `Error` naming the relation.
   */
  scopeFor?: (tableName: string) => Predicate | undefined;
}

/** Options of `compileList`: the common ones plus keyset pagination. */
export interface ListOptions extends CompileOptions {
  /**
   * Keyset seek: the sort-key values of the last row of the previous page,
   * one per term of `q.sort`, in the text form columns `k0` … gave them (null
   * for NULL). Only rows after that row are read; the count is unaffected.
   */
  after?: (string | null)[];
  /** Adds text columns `k0`, `k1`, … to each row: its sort-key values, one per term of `q.sort`, for the next cursor. */
  sortKeys?: boolean;
}

/**
 * Hands out the FROM aliases of one statement: `t0` for the base table, then
 * `t1`, `t2`, … for expansion subqueries, so nested scopes never shadow a
 * name the SQL still needs.
 */
export class Aliases {
  private n = 0;

  /** The next unused alias. */
  next(): string {
    return `t${this.n++}`;
  }
}
