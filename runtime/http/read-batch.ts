/**
 * Reads by primary key answered together: the plain reads (no expansion,
 * no BeforeQuery scope) of one table that arrive on one executor in the
 * same turn of the event loop are sent as one statement once the turn's
 * I/O has been handled, each key's row read as a plain read would
 * (`compileReadBatch`); a lone read sends the plain read's own statement.
 * Every request is still answered from one statement that started after
 * it arrived, so it sees every write committed before it was sent, and
 * PostgreSQL parses, plans and round-trips once for the turn instead of
 * once per request (docs/decisions/1348-reads-batched-per-turn.md).
 */
import type { QueryResult, SqlStatement } from "../exec/executor.js";
import type { ScalarValue } from "../predicate.js";
import { compileRead, compileReadBatch, type RowStatement } from "../sql/index.js";
import type { ResourceContext } from "./context.js";

/** A row as an executor returns it: column name to text, or null for SQL NULL. */
export type ReadRow = Record<string, string | null>;

/** What a read by key found: its row (undefined when no row has the key) and how to write it. */
export interface KeyedRead {
  row: ReadRow | undefined;
  layout: RowStatement["layout"];
}

/** The most keys one statement carries; a busier turn sends several statements. */
export const MAX_BATCH = 100;

interface Waiter {
  key: ScalarValue;
  resolve(read: KeyedRead): void;
  reject(e: unknown): void;
}

/**
 * The reads waiting for the end of this turn, per resource context: one per
 * table of a mount, so its executor, table and share of the pool are one.
 */
const waiting = new WeakMap<ResourceContext, Waiter[]>();

/** Node's check phase (after the turn's I/O callbacks); a zero timeout where there is none. */
const afterIo: (run: () => void) => void =
  typeof globalThis.setImmediate === "function"
    ? (run) => void globalThis.setImmediate(run)
    : (run) => void setTimeout(run, 0);

/**
 * Reads the row of `rc.table` whose primary key is `key` (spec: Generated
 * operations, OpRead) on `rc.readDb ?? rc.db`, together with the other
 * plain reads of `rc` in this turn; the
 * statement is admitted by `rc.admission` (one slot for the statement).
 * @returns the row, or `row: undefined` when none has the key
 * @throws (rejects with) whatever the executor or the admission threw for
 *   the statement that carried the key, so every read of a failed statement
 *   fails alike and is answered by the route's problem mapping (a database
 *   fault or a busy resource is a 503)
 */
export function readByKey(rc: ResourceContext, key: ScalarValue): Promise<KeyedRead> {
  let queue = waiting.get(rc);
  if (queue === undefined) {
    const fresh: Waiter[] = [];
    waiting.set(rc, (queue = fresh));
    afterIo(() => {
      waiting.delete(rc);
      for (let i = 0; i < fresh.length; i += MAX_BATCH) send(rc, fresh.slice(i, i + MAX_BATCH));
    });
  }
  const waiters = queue;
  return new Promise<KeyedRead>((resolve, reject) => waiters.push({ key, resolve, reject }));
}

/**
 * Runs a read statement of `rc` on `rc.readDb ?? rc.db`, admitted by the
 * resource's share of the pool when it has one (one slot for the statement,
 * docs/decisions/0911-lock-timeout.md as amended by 1348).
 * @throws (rejects with) the executor's error, also when the executor throws
 *   instead of rejecting (so a batch's failure never escapes the reads it
 *   carried), or ProblemError 503 `resource-busy` when no slot came free
 */
export async function queryAdmitted(rc: ResourceContext, stmt: SqlStatement): Promise<QueryResult> {
  const run = async (): Promise<QueryResult> => (rc.readDb ?? rc.db).query(stmt);
  return rc.admission ? rc.admission.run(run) : run();
}

/** Sends one statement for `waiters` and answers each. */
function send(rc: ResourceContext, waiters: Waiter[]): void {
  let stmt: RowStatement;
  try {
    stmt =
      waiters.length === 1
        ? compileRead(rc.service, rc.table, waiters[0]!.key)
        : compileReadBatch(
            rc.service,
            rc.table,
            waiters.map((w) => w.key),
          );
  } catch (e) {
    for (const w of waiters) w.reject(e);
    return;
  }
  queryAdmitted(rc, stmt).then(
    (result) => {
      const layout = stmt.layout;
      if (waiters.length === 1) {
        waiters[0]!.resolve({ row: result.rows[0], layout });
        return;
      }
      const found: (ReadRow | undefined)[] = new Array<ReadRow | undefined>(waiters.length);
      for (const row of result.rows) found[Number(row.n) - 1] = row;
      for (let i = 0; i < waiters.length; i++) waiters[i]!.resolve({ row: found[i], layout });
    },
    (e: unknown) => {
      for (const w of waiters) w.reject(e);
    },
  );
}
