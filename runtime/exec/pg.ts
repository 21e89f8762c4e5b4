/**
 * Executor over node-postgres (`pg`): a pool against a real PostgreSQL.
 * Statements run as named prepared statements, one name per statement text
 * (docs/decisions/0800-prepared-statements.md). What the database may do to
 * a connection (terminate it, refuse it, lock a table) never ends the
 * process and never holds a request longer than a setting allows
 * (docs/decisions/0910-connection-faults.md).
 */
import pg from "pg";
import type { Executor, ExecutorLimits, QueryResult, SqlStatement } from "./executor.js";
import { DEFAULT_MAX_PREPARED, PreparedNames } from "./prepared.js";
import { CommitOutcomeUnknownError, isUnavailable } from "./faults.js";
import { listenOnPg } from "./listen.js";
import { OwnWork } from "./own-work.js";
import { RoundTripWatchdog, type WatchedConnection } from "./watchdog.js";

/** Options of {@link createPgExecutor}. Times are milliseconds. */
export interface PgExecutorOptions {
  connectionString: string;
  /** Pool size; default 10. */
  max?: number;
  /**
   * How long a request may wait for a connection before failing (answered
   * as 503): a free one in a full pool, or a slot the server refuses with
   * `too many clients` (53300) or `starting up` (57P03); default 5000.
   */
  connectionTimeoutMillis?: number;
  /** Server-side statement timeout (answered as 504); default 30000; 0 disables. */
  statementTimeoutMillis?: number;
  /**
   * Server-side `lock_timeout`: how long one statement waits for a lock a
   * other session holds (answered as 503 naming the resource); default 3000;
   * 0 disables. Kept well below the statement timeout so that requests
   * queued behind a locked table give their connections back quickly
   * (docs/decisions/0911-lock-timeout.md).
   */
  lockTimeoutMillis?: number;
  /**
   * Client-side limit on one statement's round trip, for a server or
   * network that stops answering without closing the connection (answered
   * as 503; the connection is discarded). Default: the statement timeout
   * plus 5000, so a merely slow statement is cut by the server first (504);
   * disabled when the statement timeout is. 0 disables
   * (docs/decisions/0900-database-timeouts.md). It bounds the statements
   * sent through the executor, by one watchdog per executor rather than
   * node-postgres's per-query timer (docs/decisions/1344-round-trip-watchdog.md);
   * queries an application sends on `pool` itself are not bounded by it.
   */
  queryTimeoutMillis?: number;
  /**
   * Distinct statement texts run as named prepared statements (parsed and
   * planned once per connection); default 200, or 0 with `pgbouncer`.
   * Texts beyond it run unnamed. 0 prepares nothing: needed behind a
   * pooler that does not keep prepared statements across transactions
   * (PgBouncer before 1.21 in transaction mode). Given with `pgbouncer`, it
   * prepares behind a PgBouncer 1.21+ that tracks protocol-level prepared
   * statements (its `max_prepared_statements`, best set at least this
   * high; docs/decisions/1347-pgbouncer-prepared-statements.md).
   */
  maxPreparedStatements?: number;
  /**
   * The connection string names a pooler in transaction mode (PgBouncer,
   * or any pooler that hands out a server connection per transaction): no
   * `statement_timeout`/`lock_timeout` startup parameters, which such a
   * pooler refuses or loses between transactions, so set those on the role
   * or database instead (`ALTER ROLE app SET statement_timeout = '30s'`);
   * and no named prepared statements unless `maxPreparedStatements` is
   * given (PgBouncer 1.21+). The client-side query timeout still bounds
   * every statement (docs/decisions/1301-pgbouncer.md, 1347-pgbouncer-prepared-statements.md).
   */
  pgbouncer?: boolean;
  /**
   * Told about every error a connection raised outside a query (the server
   * terminated it, the socket broke); the connection is discarded either
   * way. Default: ignored, since the request that meets the broken
   * connection reports the fault.
   */
  onConnectionError?: (e: Error) => void;
  /**
   * Where `listen` opens its dedicated connection; default `connectionString`. Set it to the server
   * itself when `connectionString` names a pooler in transaction mode, which cannot carry LISTEN
   * (docs/decisions/1337-change-feed.md).
   */
  listenConnectionString?: string;
}

/** Whether the executor can LISTEN: not through a pooler in transaction mode unless a direct address is given. */
function canListen(options: PgExecutorOptions): boolean {
  return !options.pgbouncer || options.listenConnectionString !== undefined;
}

/** A running pg executor; `pool` is exposed for applications that share it. */
export interface PgExecutor extends Executor {
  readonly pool: pg.Pool;
  readonly limits: ExecutorLimits;
  /**
   * Opens `connections` pool connections at once (default: the pool size)
   * and returns them to the pool idle, so the first requests after a
   * start do not each pay for a connection (docs/decisions/0912-fault-log.md; bench
   * `first-seconds`). Resolves with the number opened; never rejects (a
   * database that is down shows on the first request instead).
   */
  warmUp(connections?: number): Promise<number>;
}

function toResult(r: pg.QueryResult): QueryResult {
  return { rows: r.rows as Record<string, string | null>[], rowCount: r.rowCount ?? r.rows.length };
}

/** SQLSTATEs with which a server that is up refuses a new connection for now. */
const NO_SLOT = new Set(["53300", "57P03"]);

function sqlState(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A pooled client as this executor makes them: watched for its round trips (see {@link guardedClient}). */
type GuardedPoolClient = pg.PoolClient & WatchedConnection & { cutReason: Error | undefined };

/**
 * A `pg.Client` with an error listener from its construction. pg-pool
 * removes its own listener when it hands a client out, and the caller can
 * add one only after the checkout promise resolves; an ErrorResponse that
 * arrives in the same packet as ReadyForQuery (a server terminating
 * connections, 57P01) lands between the two, and an `'error'` event with
 * no listener ends the process (docs/decisions/0910-connection-faults.md).
 *
 * It is also what the round-trip watchdog watches: cut off, it ends its
 * socket at once, so the statement in flight fails (and with it any
 * transaction), and remembers why, so that statement fails with
 * `Query read timeout` rather than a lost connection's message
 * (docs/decisions/1344-round-trip-watchdog.md).
 */
function guardedClient(report: (e: Error) => void, timeoutMillis: number): typeof pg.Client {
  return class GuardedClient extends pg.Client implements WatchedConnection {
    watchDeadline = 0;
    cutReason: Error | undefined = undefined;
    constructor(config?: string | pg.ClientConfig) {
      super(config);
      this.on("error", report);
    }
    cutOff(): void {
      this.cutReason = new Error(`Query read timeout: no answer from the database within ${timeoutMillis} ms`);
      this.connection.stream.destroy();
    }
  };
}

/**
 * Runs one statement on `client`, named when `name` is given, armed on
 * `watchdog` while it is in flight. The statement is handed over as a
 * `pg.Query` made from its text: given a config object, node-postgres
 * copies it property descriptor by property descriptor and chains a second
 * promise to the first, a measured part of every request's time in Node
 * (decision 1341, README "Tuning"). The name is set on the query before it
 * is submitted, which is when node-postgres reads it. A statement the
 * watchdog cut off rejects with the watchdog's `Query read timeout` error.
 */
function submit(
  client: GuardedPoolClient,
  watchdog: RoundTripWatchdog | undefined,
  name: string | undefined,
  text: string,
  values: readonly unknown[] | undefined,
): Promise<pg.QueryResult> {
  return new Promise((resolve, reject) => {
    // @types/pg declares the callback's result as the query's result builder, which is the QueryResult given.
    const query: pg.Query & { name?: string } = new pg.Query(text, values as unknown[], (err, result) => {
      watchdog?.disarm(client);
      if (err) reject(client.cutReason ?? err);
      else resolve(result as unknown as pg.QueryResult);
    });
    if (name !== undefined) query.name = name;
    watchdog?.arm(client);
    client.query(query);
  });
}

function onClient(client: GuardedPoolClient, watchdog: RoundTripWatchdog | undefined, names: PreparedNames): Executor {
  return {
    async query(stmt: SqlStatement) {
      return toResult(await submit(client, watchdog, names.nameOf(stmt.text), stmt.text, stmt.values));
    },
    transaction: () => {
      throw new Error("nested transactions are not supported");
    },
    async script(sql: string) {
      await submit(client, watchdog, undefined, sql, undefined);
    },
    close: async () => {},
  };
}

/**
 * Creates a pooled executor. No database error, at any moment of a
 * connection's life, escapes as an `'error'` event: broken connections are
 * discarded and the next request opens a fresh one.
 */
export function createPgExecutor(options: PgExecutorOptions): PgExecutor {
  const statementTimeout = options.statementTimeoutMillis ?? 30000;
  const queryTimeout = options.queryTimeoutMillis ?? (statementTimeout > 0 ? statementTimeout + 5000 : 0);
  const lockTimeout = options.pgbouncer ? 0 : (options.lockTimeoutMillis ?? 3000);
  const connectTimeout = options.connectionTimeoutMillis ?? 5000;
  const max = options.max ?? 10;
  const report = options.onConnectionError ?? ((): void => {});
  // A statement from within an open transaction's work runs on its connection (runtime/exec/own-work.ts).
  const work = new OwnWork();
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    connectionTimeoutMillis: connectTimeout,
    statement_timeout: options.pgbouncer ? undefined : statementTimeout,
    lock_timeout: lockTimeout > 0 ? lockTimeout : undefined,
    Client: guardedClient(report, queryTimeout),
  });
  const watchdog = queryTimeout > 0 ? new RoundTripWatchdog(queryTimeout) : undefined;
  // An idle client lost its connection: the pool has discarded it already.
  pool.on("error", () => {});
  // Behind a pooler only when asked for: PgBouncer before 1.21 loses them between transactions (decision 1347).
  const names = new PreparedNames(options.maxPreparedStatements ?? (options.pgbouncer ? 0 : DEFAULT_MAX_PREPARED));

  /**
   * Checks a client out. A server that refuses the connection for lack of
   * a slot is asked again until the connection timeout runs out, so the
   * connections this pool already holds serve the request once one is free.
   */
  function acquire(): Promise<GuardedPoolClient> {
    // The first attempt is the pool's own promise, no async frame around it (decision 1341); only a refusal
    // goes on to the retries.
    const deadline = Date.now() + connectTimeout;
    // Every client of this pool is a GuardedClient (the pool's `Client` option).
    return (pool.connect() as Promise<GuardedPoolClient>).catch((e: unknown) => retryAcquire(e, deadline));
  }

  /** Asks again after a refusal for lack of a slot, with growing pauses, until `deadline` (ms since the epoch). */
  async function retryAcquire(first: unknown, deadline: number): Promise<GuardedPoolClient> {
    let e = first;
    let pause = 20;
    for (;;) {
      if (!NO_SLOT.has(sqlState(e)) || Date.now() + pause >= deadline) throw e;
      await sleep(pause);
      pause = Math.min(pause * 2, 200);
      try {
        return (await pool.connect()) as GuardedPoolClient;
      } catch (again) {
        e = again;
      }
    }
  }

  /** Returns a client; one whose connection failed is destroyed, not pooled. */
  function release(client: pg.PoolClient, failed: unknown): void {
    if (failed !== undefined && isConnectionFault(failed)) client.release(true);
    else client.release();
  }

  return {
    pool,
    limits: { capacity: max, acquireTimeoutMillis: connectTimeout },
    async query(stmt: SqlStatement) {
      const joined = work.joined();
      if (joined) return joined.query(stmt);
      const client = await acquire();
      let failed: unknown;
      try {
        return toResult(await submit(client, watchdog, names.nameOf(stmt.text), stmt.text, stmt.values));
      } catch (e) {
        failed = e;
        throw e;
      } finally {
        release(client, failed);
      }
    },
    async script(sql: string) {
      const joined = work.joined();
      if (joined) return joined.script(sql);
      // A dedicated client, so session settings a script makes (search_path) stay with it.
      const client = await acquire();
      try {
        await submit(client, watchdog, undefined, sql, undefined);
      } finally {
        client.release(true);
      }
    },
    async transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      const nested = work.nested(fn);
      if (nested) return nested;
      const client = await acquire();
      let broken = false;
      try {
        await submit(client, watchdog, undefined, "BEGIN", undefined);
        const out = await work.run(
          onClient(client, watchdog, names),
          async (sql) => void (await submit(client, watchdog, undefined, sql, undefined)),
          fn,
        );
        try {
          await submit(client, watchdog, undefined, "COMMIT", undefined);
        } catch (e) {
          // Sent, but no answer came back: the outcome is unknown (a refused COMMIT, 40001 say, is a known failure).
          if (isUnavailable(e)) {
            broken = true;
            throw new CommitOutcomeUnknownError(e);
          }
          throw e;
        }
        return out;
      } catch (e) {
        if (!broken) {
          try {
            await submit(client, watchdog, undefined, "ROLLBACK", undefined);
          } catch {
            broken = true;
          }
        }
        throw e;
      } finally {
        client.release(broken);
      }
    },
    async warmUp(connections = max) {
      const n = Math.max(0, Math.min(connections, max));
      const opened = await Promise.allSettled(Array.from({ length: n }, () => pool.connect()));
      let ok = 0;
      for (const r of opened) {
        if (r.status === "fulfilled") {
          ok++;
          r.value.release();
        }
      }
      return ok;
    },
    // A LISTEN through a pooler in transaction mode would hear nothing reliably: the feed polls instead.
    ...(canListen(options)
      ? {
          async listen(channel: string, onNotify: (payload?: string) => void) {
            return listenOnPg(options.listenConnectionString ?? options.connectionString, channel, onNotify, report);
          },
        }
      : {}),
    close: () => {
      watchdog?.close();
      return pool.end();
    },
  };
}

/** True for an error that leaves the connection unusable (class 08, 57P0x, or a driver error without SQLSTATE). */
function isConnectionFault(e: unknown): boolean {
  const code = sqlState(e);
  return code === "" || code.startsWith("08") || code.startsWith("57P");
}
