/**
 * An executor acting as one request's database identity
 * (docs/decisions/1368-database-row-level-security.md): every statement it
 * is given runs in a transaction whose first statement sets, for that
 * transaction only, the role and the claims setting:
 *
 * ```sql
 * SELECT set_config('role', $1, true) AS role, set_config($2, $3, true) AS claims
 * ```
 *
 * `set_config(…, true)` is `SET LOCAL`: it ends with the transaction, by
 * COMMIT or ROLLBACK, so the connection goes back to the pool (or to
 * PgBouncer in transaction mode) as the login role, carrying nothing of
 * the request. A plain `SET` would outlive the transaction and is never sent.
 * The role is a bind parameter, as `SET LOCAL ROLE "…"` could not take it;
 * PostgreSQL checks it exactly as it checks `SET ROLE` (the login role must
 * be a member).
 *
 * A statement or transaction sent to the executor from within the work of
 * one of its own transactions joins it, as on the executors themselves
 * (docs/decisions/1366-own-work-joins-its-transaction.md): a hook's
 * `ctx.db`, the idempotency layer's transaction and a handler's write are
 * one transaction with one identity, and a nested transaction is a
 * savepoint. One that arrives from within the transaction of another
 * identity is refused rather than run in it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { brandClass } from "../brand.js";
import type { Executor, QueryResult, SqlStatement } from "./executor.js";
import { isUnavailable } from "./faults.js";

/**
 * Who the database is told a request is: the role its transaction acts as
 * and the claims the policies read. Built per request from the principal
 * (runtime/auth/database.ts); never from the token's text unvalidated.
 */
export interface DatabaseIdentity {
  /** The database role, one of the schema's or the settings' role names. */
  readonly role: string;
  /** The custom setting the claims go in, e.g. `request.jwt.claims`. */
  readonly claimsSetting: string;
  /** The claims as JSON text (an object). */
  readonly claims: string;
}

/** The first statement of every transaction of a {@link DatabaseIdentity}: role, then claims, both transaction-scoped. */
export const IDENTITY_TEXT = "SELECT set_config('role', $1, true) AS role, set_config($2, $3, true) AS claims";

/** The statement setting `identity` for the rest of the transaction it runs in. */
export function identityStatement(identity: DatabaseIdentity): SqlStatement {
  return { text: IDENTITY_TEXT, values: [identity.role, identity.claimsSetting, identity.claims] };
}

/**
 * The database would not let the service act as the identity's role: the
 * role does not exist (22023), or the login role is not a member of it
 * (42501). A fault of the deployment, not of the request: answered 500 and
 * logged, the message naming the role and the SQLSTATE.
 */
export class DatabaseRoleRefused extends Error {
  /** The role that was refused. */
  readonly role: string;

  constructor(role: string, cause: unknown) {
    const code = (cause as { code?: unknown } | null)?.code;
    super(
      `the database refused to act as role ${JSON.stringify(role)}` +
        (typeof code === "string" ? ` (SQLSTATE ${code})` : "") +
        ": the role must exist and be granted to the service's login role (GRANT <role> TO <login role>)",
      { cause },
    );
    this.name = "DatabaseRoleRefused";
    this.role = role;
  }
}
brandClass(DatabaseRoleRefused, "resc.DatabaseRoleRefused");

/** A statement of one identity sent from within the open transaction of another: never run there. */
export class DatabaseIdentityCrossed extends Error {
  constructor() {
    super(
      "a statement of one request's database identity was sent from within the transaction of another; " +
        "each request must use its own executor (ctx.db)",
    );
    this.name = "DatabaseIdentityCrossed";
  }
}
brandClass(DatabaseIdentityCrossed, "resc.DatabaseIdentityCrossed");

/** The mark an error raised under a database identity carries: the role it acted as. */
const ACTED_AS = Symbol.for("resc.actedAsDatabaseRole");

/** Marks a driver error as raised while acting as `role`; other values pass unchanged. */
function marked(e: unknown, role: string): unknown {
  if (typeof e === "object" && e !== null && !Object.hasOwn(e, ACTED_AS))
    Object.defineProperty(e, ACTED_AS, { value: role, enumerable: false });
  return e;
}

/**
 * The database role a driver error was raised under, when a statement of a
 * {@link asDatabaseIdentity} executor raised it; undefined for the service's
 * own statements. The HTTP layer answers an insufficient privilege (42501)
 * under an identity as 403, and the service's own as a fault (500).
 */
export function actedAs(e: unknown): string | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const role = (e as Record<symbol, unknown>)[ACTED_AS];
  return typeof role === "string" ? role : undefined;
}

/** The identity transaction whose work is running, while it is open. */
interface Open {
  identity: DatabaseIdentity;
  tx: Executor;
  live: boolean;
}

/** One store for every identity executor: joining is by identity, so a request's primary and read executors meet. */
const current = new AsyncLocalStorage<Open>();

let savepoints = 0;

/** Options of {@link asDatabaseIdentity}. */
export interface IdentityOptions {
  /**
   * The executor serves reads only (`MountOptions.readDb`): a transaction of its own is begun with the
   * wrapped executor's `readTransaction` when it has one (a replica router sends it to a replica), else
   * with `transaction`.
   */
  reads?: boolean;
}

/**
 * An executor running everything it is given on `db` as `identity` (see the
 * module comment): a statement outside a transaction becomes a transaction
 * of its own (BEGIN, the identity statement, the statement, COMMIT: four
 * round trips instead of one); `transaction(fn)` runs the identity
 * statement first, then `fn`. `close()` does nothing: the executor wrapped
 * is the service's. An executor made for one request, on its principal's
 * identity, is that request's only.
 *
 * Caveat: used from within a transaction the application opened on `db`
 * itself, the executor's transaction is a savepoint of it (`db` nests it),
 * and that transaction acts as `identity` from then on.
 * @throws (rejects with) DatabaseRoleRefused when the identity statement is refused; DatabaseIdentityCrossed
 *   when called from within another identity's transaction; otherwise the driver's error, marked with the
 *   role ({@link actedAs})
 */
export function asDatabaseIdentity(db: Executor, identity: DatabaseIdentity, options: IdentityOptions = {}): Executor {
  const prefix = identityStatement(identity);
  const begin = <T>(fn: (tx: Executor) => Promise<T>): Promise<T> =>
    options.reads && db.readTransaction ? db.readTransaction(fn) : db.transaction(fn);
  const role = identity.role;

  /** The open transaction of this identity when called from within its work. */
  const joined = (): Open | undefined => {
    const t = current.getStore();
    if (!t?.live) return undefined;
    if (t.identity !== identity) throw new DatabaseIdentityCrossed();
    return t;
  };

  /** Runs `fn` in a transaction of its own, the identity set first. */
  const fresh = <T>(fn: (tx: Executor) => Promise<T>): Promise<T> =>
    begin(async (tx) => {
      try {
        await tx.query(prefix);
      } catch (e) {
        throw isUnavailable(e) ? e : new DatabaseRoleRefused(role, e);
      }
      const open: Open = { identity, tx, live: true };
      try {
        return await current.run(open, () => fn(tx));
      } finally {
        open.live = false;
      }
    }).catch((e: unknown) => {
      throw marked(e, role);
    });

  return {
    query(stmt: SqlStatement): Promise<QueryResult> {
      const t = joined();
      if (!t) return fresh((tx) => tx.query(stmt));
      return t.tx.query(stmt).catch((e: unknown) => {
        throw marked(e, role);
      });
    },
    transaction<T>(fn: (tx: Executor) => Promise<T>): Promise<T> {
      const t = joined();
      return t ? savepoint(t, fn) : fresh(fn);
    },
    async script(sql: string): Promise<void> {
      const t = joined();
      await (t ? t.tx.script(sql) : fresh((tx) => tx.script(sql)));
    },
    ...(db.limits ? { limits: db.limits } : {}),
    close: async () => {},
  };
}

/** `fn` in a savepoint of the open transaction `t`: its failure undoes its own statements only. */
async function savepoint<T>(t: Open, fn: (tx: Executor) => Promise<T>): Promise<T> {
  const name = `resc_identity_${++savepoints}`;
  await t.tx.script(`SAVEPOINT ${name}`);
  try {
    const out = await fn(t.tx);
    await t.tx.script(`RELEASE SAVEPOINT ${name}`);
    return out;
  } catch (e) {
    await t.tx.script(`ROLLBACK TO SAVEPOINT ${name}`);
    throw e;
  }
}
