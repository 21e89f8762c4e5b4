/**
 * In-process hooks (spec: Events): BeforeQuery confines reads, BeforeCreate
 * stamps read-only columns, ValidateCreate is the create type's row-building
 * step, AfterCommit follows a committed write. Payloads are ours to define
 * (the spec leaves them open): docs/decisions/0600-hooks.md. The same hooks
 * serve HTTP requests (`mountService`) and in-process queries
 * (`createQueryBuilder`).
 */
import type { Context } from "hono";
import type { Executor } from "./exec/executor.js";
import type { Predicate, ScalarValue, JsonValue } from "./predicate.js";
import type { ProblemItem } from "./problem.js";
import type { Principal } from "./auth/principal.js";

/**
 * The operation a hook is called for. `expand` is a read of a table joined
 * by an expansion; `action` a declared action (the context's `action` names
 * it; docs/decisions/1334-declared-actions.md).
 */
export type HookOperation = "list" | "read" | "create" | "update" | "delete" | "expand" | "action";

/**
 * Data the application hands to its hooks, e.g. `{ orgId, userId }`: over
 * HTTP from `MountOptions.hookData`, in process from the query builder's
 * `data`. Hooks read it instead of the Hono context, so one hook serves both.
 * Any object may be given (an interface too); hooks read its members as
 * `unknown`.
 */
export type HookData = Readonly<Record<string, unknown>>;

/** What every hook receives. */
export interface HookContext {
  /** The table the hook is registered on (schema spelling). */
  table: string;
  operation: HookOperation;
  /** The Hono context of the request; absent for in-process queries. */
  http?: Context;
  /** For operation `action`: the declared action's name. */
  action?: string;
  /** The application's data for this request or query; absent when none was given. */
  data?: HookData;
  /**
   * Who is asking (docs/decisions/1367-access-rules.md): set by the built-in bearer
   * verification or a middleware's `setPrincipal`, or given to the query builder;
   * absent when nothing established one.
   */
  principal?: Principal;
  /**
   * The service's executor, outside any transaction (an AfterCommit hook
   * runs after the commit, so it reads the write it follows). Absent only
   * when a caller builds a context by hand. In the database-role mode of an
   * `auth` block it acts as the request's database role and claims, every
   * statement in a transaction of that identity
   * (docs/decisions/1368-database-row-level-security.md).
   */
  db?: Executor;
}

/** A row's values by column name, as decoded from a body or set by a hook. */
export type RowValues = Record<string, ScalarValue | ScalarValue[] | JsonValue | null>;

/**
 * Returns the predicate confining every read of its table: list, read, the
 * rows an update or delete may touch, expansions onto the table (requalified
 * onto the joined table, spec: Expansion rule 6) and in-process queries.
 * Returning undefined adds nothing. Only a predicate is taken: a hook has no
 * say in ordering or limits. A comparison may carry `table` only when it
 * names the hook's own table; a raw predicate works on direct reads but
 * fails any expansion onto the table (500 `hook-misconfigured`).
 */
export type BeforeQueryHook = (ctx: HookContext) => Predicate | undefined | Promise<Predicate | undefined>;

/**
 * Returns the values to insert, typically stamping read-only columns (a
 * tenant id): the create body never carries them (spec: Column
 * capabilities, read-only). Runs before {@link ValidateCreateHook}.
 */
export type BeforeCreateHook = (ctx: HookContext, values: RowValues) => RowValues | Promise<RowValues>;

/**
 * The create type's row-building step (spec: Generated operations rule 5):
 * cross-field rules the schema cannot state. Receives the values after
 * BeforeCreate stamped them; returning one or more problems refuses the
 * create with a 422 problem document listing them (locations such as
 * `body.due_on`); returning nothing or an empty list accepts it
 * (docs/decisions/0604-create-row-building.md).
 */
export type ValidateCreateHook = (
  ctx: HookContext,
  values: Readonly<RowValues>,
) => ProblemItem[] | undefined | void | Promise<ProblemItem[] | undefined | void>;

/** A committed write. */
export interface CommitEvent {
  table: string;
  /** `action`: a declared action committed (its name in `action`). */
  operation: "create" | "update" | "delete" | "action";
  /** For operation `action`: the declared action's name. */
  action?: string;
  /** The written row as the response carries it (create, update, an item action); absent for a delete and a collection action. */
  row?: Record<string, unknown>;
  /** The primary key of the written row, in its JSON form (as the response spells it); absent for a collection action. */
  key?: ScalarValue;
  /** True when a delete marked the row through the table's soft-delete column instead of deleting it. */
  softDeleted?: boolean;
}

/**
 * Runs after a write's transaction commits (spec: Generated operations rule
 * 7); it reads its own write through `ctx.db`. Its failure is logged, never
 * turned into a failed response: the write is already committed.
 */
export type AfterCommitHook = (ctx: HookContext, event: CommitEvent) => void | Promise<void>;

/**
 * What an action's implementation receives (docs/decisions/1334-declared-actions.md).
 * It runs inside the action's transaction: every statement it sends through
 * `tx` commits or rolls back with the action.
 */
export interface ActionContext extends HookContext {
  operation: "action";
  action: string;
  /** The decoded input: every declared field, an omitted nullable one as null. */
  input: Readonly<RowValues>;
  /** The action's transaction. */
  tx: Executor;
  /**
   * Item actions: the row, locked (`SELECT … FOR UPDATE`) within the
   * caller's BeforeQuery scope, as a read returns it (hidden columns
   * omitted). Absent for a collection action.
   */
  row?: Readonly<Record<string, unknown>>;
  /** Item actions: the row's primary key, decoded from the path. */
  key?: ScalarValue;
  /**
   * Item actions: writes `values` (any stored, non-computed column, read-only
   * ones included: the action is the server) to the locked row in the
   * action's transaction, every value a bind parameter; resolves to the row
   * as a read returns it.
   */
  update?: (values: RowValues) => Promise<Record<string, unknown>>;
  /**
   * The BeforeQuery predicate of the caller on this table, for a collection
   * action's own statements to apply; absent when no hook confines it.
   */
  scope?: Predicate;
}

/**
 * A declared action's implementation. Throw a `ProblemError` to answer with
 * its problem document (the transaction rolls back: a rental already
 * returned is a 409). Return the declared output's fields when the action
 * declares `returns { … }`; otherwise the return value is ignored.
 */
export type ActionImplementation = (
  ctx: ActionContext,
) => void | Readonly<Record<string, unknown>> | Promise<void | Readonly<Record<string, unknown>>>;

/**
 * Hooks by table name (schema spelling). The table is the unit of
 * registration: a BeforeQuery hook confines its table wherever it is read,
 * through its own resource or an expansion (docs/decisions/0600-hooks.md).
 */
export interface Hooks {
  beforeQuery?: Record<string, BeforeQueryHook>;
  beforeCreate?: Record<string, BeforeCreateHook>;
  validateCreate?: Record<string, ValidateCreateHook>;
  afterCommit?: Record<string, AfterCommitHook>;
  /**
   * Implementations of declared actions, by table then action name
   * (`actions.rental.return`). Every declared action of a served table needs
   * one, or nothing mounts (docs/decisions/1334-declared-actions.md).
   */
  actions?: Record<string, Record<string, ActionImplementation>>;
}
