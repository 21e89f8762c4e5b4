/**
 * Reads on read replicas (docs/decisions/1302-read-replicas.md):
 * an executor for list and read requests that sends each statement to the
 * next replica in turn and, when a replica cannot be reached, marks it down
 * for a while and runs the statement on the primary instead, so a stopped
 * replica costs no failed request. Writes never come here: the handlers
 * send them, and every hook's reads, to the primary. A read that needs a
 * transaction of its own (`readTransaction`, the database-role mode of
 * docs/decisions/1368-database-row-level-security.md) goes to a replica too.
 */
import { CommitOutcomeUnknownError, isUnavailable } from "./faults.js";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";

/** One replica as the router sees it. */
export interface ReplicaState {
  /** A name for logs and `/ready`: the host and port, never the credentials. */
  name: string;
  up: boolean;
  /** Why it is down, when it is. */
  error?: string;
}

/** A read executor over replicas, falling back to the primary. */
export interface ReplicaRouter extends Executor {
  /** Each replica's state, in the order given. */
  replicas(): ReplicaState[];
}

/** How long a replica that failed is left alone before it is tried again, in milliseconds. */
const RETRY_AFTER_MS = 5000;

/**
 * Creates the router.
 * @param replicas each replica's executor and its display name
 * @param primary where reads go when no replica answers, and every transaction or script
 */
export function createReplicaRouter(
  replicas: readonly { name: string; db: Executor }[],
  primary: Executor,
): ReplicaRouter {
  const state = replicas.map((r) => ({ ...r, downUntil: 0, error: undefined as string | undefined }));
  let next = 0;
  const pick = (): (typeof state)[number] | undefined => {
    const now = Date.now();
    for (let i = 0; i < state.length; i++) {
      const r = state[(next + i) % state.length]!;
      if (r.downUntil <= now) {
        next = (next + i + 1) % state.length;
        return r;
      }
    }
    return undefined;
  };
  return {
    async query(stmt: SqlStatement): Promise<QueryResult> {
      const replica = pick();
      if (!replica) return primary.query(stmt);
      try {
        const out = await replica.db.query(stmt);
        replica.error = undefined;
        return out;
      } catch (e) {
        if (!isUnavailable(e)) throw e;
        replica.downUntil = Date.now() + RETRY_AFTER_MS;
        replica.error = e instanceof Error ? e.message : String(e);
        return primary.query(stmt);
      }
    },
    transaction: (fn) => primary.transaction(fn),
    // A read that needs a transaction of its own (decision 1368): on a replica, falling back as a statement does.
    async readTransaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      const replica = pick();
      if (!replica) return primary.transaction(fn);
      try {
        const db = replica.db;
        const out = await (db.readTransaction ? db.readTransaction(fn) : db.transaction(fn));
        replica.error = undefined;
        return out;
      } catch (e) {
        // A read's lost COMMIT changed nothing: it is as safe to run again as a lost statement.
        if (!isUnavailable(e) && !(e instanceof CommitOutcomeUnknownError)) throw e;
        replica.downUntil = Date.now() + RETRY_AFTER_MS;
        const cause = e instanceof CommitOutcomeUnknownError ? e.cause : e;
        replica.error = cause instanceof Error ? cause.message : String(cause);
        return primary.transaction(fn);
      }
    },
    script: (sql) => primary.script(sql),
    async close() {
      await Promise.all(replicas.map((r) => r.db.close()));
    },
    replicas() {
      const now = Date.now();
      return state.map((r) => ({
        name: r.name,
        up: r.downUntil <= now,
        ...(r.downUntil > now && r.error ? { error: r.error } : {}),
      }));
    },
  };
}
