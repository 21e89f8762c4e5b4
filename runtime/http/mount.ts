/**
 * Mounts every exposed operation of a service on a Hono app (spec:
 * Generated operations). An operation not exposed gets no route at all, so
 * it answers the app's 404, never a 405.
 */
import type { Context, Hono } from "hono";
import {
  actionPath,
  DEFAULT_MAX_BODY_BYTES,
  type DatabaseRoleDescriptor,
  type ServiceDescriptor,
} from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { HookData, Hooks } from "../hooks.js";
import { HookError } from "../hook-error.js";
import { registrationErrors, type RegistrationError } from "../hooks/registration.js";
import { isProblem, problem, ProblemError } from "../problem.js";
import { createAdmission, type Admission } from "./admission.js";
import { admitted, withDatabaseIdentity } from "./access.js";
import { withDeclaredRules } from "../access/hooks.js";
import type { RuleOperation } from "../access/rules.js";
import type { ResourceContext } from "./context.js";
import { toProblem } from "./db-errors.js";
import { defaultFaultLogger, requestIdOf, type FaultReport } from "./fault-log.js";
import { handleList } from "./list.js";
import { handleRead } from "./read.js";
import { preparesNoHeaders } from "./plain-answer.js";
import { problemResponse } from "./respond.js";
import { handleCreate, handleDelete, handleUpdate } from "./write.js";
import { handleFilteredDelete, handleFilteredUpdate } from "./filtered-write.js";
import { actionHandler } from "./action.js";
import { idempotent, type IdempotencyOptions } from "./idempotency.js";
import { limitBody } from "./body-limit.js";
import { eventsHandler, type StreamLimits } from "./events.js";
import { FeedHub } from "../events/hub.js";
import { resourceAuthentication, type MountAuthOptions } from "../auth/mounting.js";
import { checkDatabaseRoles } from "../auth/database.js";
import { itemPattern } from "./item-key.js";
import { AuthConfigError } from "../auth/errors.js";
import {
  keepStartingWebhooks,
  webhookProblems,
  webhookRetentionFloor,
  type WebhookOptions,
} from "../events/webhooks.js";

/** Options of {@link mountService}. */
export interface MountOptions {
  /** The database the handlers query. */
  db: Executor;
  /**
   * Where list and read requests are answered from, e.g. a
   * `createReplicaRouter` over read replicas; default `db`. Writes, the
   * row a write returns, and every hook use `db` (the primary).
   */
  readDb?: Executor;
  /**
   * BeforeQuery / BeforeCreate / ValidateCreate / AfterCommit hooks by table
   * name. A table declaring `@@scoped` needs a BeforeQuery hook (or a declared
   * access rule), or nothing mounts; a soft-delete column needs none
   * (docs/decisions/1367-access-rules.md).
   */
  hooks?: Hooks;
  /**
   * Derives the `data` every hook of a request receives (for example the
   * tenant of the authenticated caller, from `c.get("jwtPayload")`), so the
   * same hooks serve HTTP and the in-process query builder. Default: none.
   */
  hookData?: (c: Context) => object | undefined;
  /** Prefix of every route, e.g. `/api`; default none. */
  basePath?: string;
  /** Largest accepted request body in bytes (larger: 413); default {@link DEFAULT_MAX_BODY_BYTES} (1 MiB). */
  maxBodyBytes?: number;
  /**
   * Receives each fault answered with a 5xx, and each error an AfterCommit
   * hook throws, with a {@link FaultReport} of the request. Default: one
   * line on stderr per fault, the stack trace only with
   * `RESC_LOG_LEVEL=debug` (docs/decisions/0912-fault-log.md).
   */
  logError?: (e: unknown, report: FaultReport) => void;
  /**
   * Most requests of one resource served at once, so that requests stuck
   * on one locked table cannot hold the whole pool (docs/decisions/0911-lock-timeout.md). Default:
   * half the executor's pool (`db.limits.capacity`), rounded up; `false`
   * or an executor without limits (PGlite): no cap. A request over the
   * cap waits for a slot up to the executor's connection timeout, then is
   * answered 503 `resource-busy` (docs/decisions/0911-lock-timeout.md).
   */
  resourceConcurrency?: number | false;
  /**
   * How long a response stored under an `Idempotency-Key` answers retries,
   * in seconds; default 86400 (24 hours; docs/decisions/1335-idempotency-keys.md).
   */
  idempotencyRetentionSeconds?: number;
  /**
   * The caller's identity an `Idempotency-Key` is scoped by, as plain data
   * (docs/decisions/1360-idempotency-scope.md): the same for every
   * credential of one caller, different for every caller the service tells
   * apart. Default: what `hookData` returns for the request; with neither,
   * every request shares one scope (the service knows no callers apart).
   * Give it when the hooks tell callers apart by reading the request itself
   * rather than their `data`, or when the data holds more than the caller.
   */
  idempotencyScope?: (c: Context) => unknown;
  /**
   * The change feed of resources declaring `events = true` (docs/decisions/1337-change-feed.md): how
   * long changes are kept, the heartbeat and the bound on a slow reader. Defaults: 24 hours, 15 s,
   * 1,000 events or 1 MiB.
   */
  events?: EventOptions;
  /**
   * Webhook subscriptions and their delivery settings (docs/decisions/1338-webhooks.md): each
   * matching change of a resource declaring events is POSTed, signed, retried. A subscription
   * that cannot run (unknown table, refused filter) refuses the mount as a registration error.
   */
  webhooks?: WebhookOptions;
  /**
   * Aborted when the server stops: change feed streams end with a `reconnect` event (so the server's
   * close is not held by them) and the feed's timers stop; {@link mountsStopped} says when they have.
   */
  signal?: AbortSignal;
  /**
   * How the schema's `auth` block authenticates requests (docs/decisions/1367-access-rules.md): with one,
   * every route of every served resource verifies the `Authorization: Bearer` token into the request's
   * principal (or admits the anonymous role, or answers 401), unless a middleware in front already set a
   * principal; routes of the app's own (`/auth/login`, `/openapi.json`) stay as they are. The options give
   * the environment secrets are read from, development tokens, overrides of the `jwt` settings and a log of
   * refusals; `false` installs no verification (the declared access rules then answer 401 to a request
   * no middleware in front gave a principal). Ignored without an `auth` block. With the block's `database`
   * settings (docs/decisions/1368-database-row-level-security.md) every statement of a request, on `db` and
   * `readDb`, its hooks' `ctx.db` included, runs in a transaction acting as the principal's database role with
   * its claims; the change feed and webhooks still read as the service's own role.
   */
  auth?: MountAuthOptions | false;
  /**
   * The database-role mode's settings (docs/decisions/1368-database-row-level-security.md), replacing the
   * `auth` block's `database { … }` ones: each request's statements act as the principal's database role and
   * claims. Needs an `auth` block (else AuthConfigError); independent of {@link auth}, so a `--middleware`
   * principal (`auth: false`) is handed to the database too. Default: the schema's settings, if any.
   */
  databaseRole?: DatabaseRoleDescriptor;
}

export type { MountAuthOptions };

/** {@link MountOptions.events}. */
export interface EventOptions extends StreamLimits {
  /** How long captured changes are kept, in seconds; default 86400. */
  retentionSeconds?: number;
  /** The poll besides LISTEN/NOTIFY, in milliseconds; default 1000. */
  pollMs?: number;
}

export type { RegistrationError };

/** Outcome of mounting: registration errors are returned, never thrown (spec: Column capabilities). */
export type MountResult = { ok: true } | { ok: false; errors: RegistrationError[] };

type Handler = (rc: ResourceContext, c: Context) => Promise<Response>;

/**
 * A hook the service cannot apply is the server's fault, not the client's:
 * 500 with type `/problems/hook-misconfigured`, the detail naming the table
 * and relation (docs/decisions/0600-hooks.md). Logged like any 5xx.
 */
function misconfigured(e: HookError): ProblemError {
  return problem("hook-misconfigured", e.message);
}

/**
 * The Hono handler of one operation: `handler` run under the resource's
 * admission, every error answered as a problem document. With `noHeaders`
 * it is declared to prepare no header (decision 1352), which holds when no
 * application code (a hook, `hookData`) receives the request's context.
 */
function route(
  rc: ResourceContext,
  handler: Handler,
  admission: Admission | undefined,
  noHeaders: boolean,
  op: RuleOperation,
) {
  // The declared rules admit the operation and pick the descriptors the caller's roles see (decision 1367).
  // In the database-role mode its statements act as the principal's database identity (decision 1368).
  const serve = (c: Context): Promise<Response> => handler(withDatabaseIdentity(admitted(rc, c, op), c), c);
  const operation = async (c: Context): Promise<Response> => {
    try {
      return await (admission ? admission.run(() => serve(c)) : serve(c));
    } catch (e) {
      const p = e instanceof HookError ? misconfigured(e) : toProblem(e, rc.table);
      // A fault of ours is logged; a 5xx a hook chose to answer is the application's own.
      if (p.status >= 500 && (!(e instanceof ProblemError) || isProblem(p, "hook-misconfigured", "resource-busy")))
        rc.logError(e, c, p);
      return problemResponse(c, p);
    }
  };
  return noHeaders ? preparesNoHeaders(operation) : operation;
}

/**
 * Whether application code may see a request's context while resc answers
 * it: a `hookData` or `idempotencyScope` function, or any hook other than a declared action's
 * (actions' routes are never declared header-free). BeforeQuery hooks run
 * for other tables' expansions too, so any hook of the mount counts.
 */
function contextReachesApplication(hooks: Hooks, options: MountOptions): boolean {
  if (options.hookData !== undefined || options.idempotencyScope !== undefined) return true;
  const byTable = [hooks.beforeQuery, hooks.beforeCreate, hooks.validateCreate, hooks.afterCommit];
  return byTable.some((m) => m !== undefined && Object.keys(m).length > 0);
}

/**
 * The change feed of a mount: one {@link FeedHub} over `options.db`, its
 * retention purge every minute, both stopped by `options.signal`. Faults
 * reading the outbox are logged under `/events` as what they are (a 503 when
 * the database is away, a 500 for resc's own) and retried.
 */
function startFeed(
  service: ServiceDescriptor,
  options: MountOptions,
  hooks: Hooks,
  sink: (e: unknown, r: FaultReport) => void,
): FeedHub {
  // A fault is reported as what it is: the database's (503 database-unavailable, a statement it refused, by
  // SQLSTATE) or resc's own (500 internal), never every failure as the database being away.
  const onError = (e: unknown): void => {
    const p = toProblem(e instanceof Error && !("code" in e) && e.cause !== undefined ? e.cause : e);
    sink(e, {
      status: p.status,
      kind: p.kind,
      resource: "/events",
      method: "GET",
      requestId: "change-feed",
      error: e,
    });
  };
  const ev = options.events ?? {};
  const feed = new FeedHub(options.db, service, {
    ...(ev.retentionSeconds !== undefined ? { retentionSeconds: ev.retentionSeconds } : {}),
    ...(ev.pollMs !== undefined ? { pollMs: ev.pollMs } : {}),
    onError,
  });
  const subs = options.webhooks?.subscriptions ?? [];
  const stopping = new AbortController();
  // The outbox keeps what a subscription has yet to queue (docs/decisions/1359-webhook-delivery-at-least-once.md).
  const names = subs.map((s) => s.name);
  const purge = setInterval(
    () => void (async () => feed.purge(await webhookRetentionFloor(options.db, names)))().catch(onError),
    60_000,
  );
  purge.unref();
  const webhooks =
    subs.length > 0
      ? keepStartingWebhooks(
          options.db,
          service,
          hooks,
          feed,
          { onError, ...options.webhooks!, subscriptions: subs },
          stopping.signal,
        )
      : undefined;
  const signal = options.signal;
  if (signal) {
    const stopped = new Promise<void>((resolve) => {
      const stop = (): void => {
        clearInterval(purge);
        stopping.abort();
        void (async () => {
          await (await webhooks)?.stop();
          await feed.close();
        })()
          .catch(onError)
          .finally(resolve);
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
    stopsUnder.set(signal, [...(stopsUnder.get(signal) ?? []), stopped]);
  }
  return feed;
}

/** The stops of the feeds mounted under each signal ({@link mountsStopped}). */
const stopsUnder = new WeakMap<AbortSignal, Promise<void>[]>();

/**
 * Resolves once every change feed and webhook delivery mounted with
 * `signal` as {@link MountOptions.signal} has stopped after the signal was
 * aborted: their last statements answered, webhook positions saved, the
 * LISTEN connection closed. Close the database only then: closed under them,
 * their last statements fail and are logged as faults of a service that was
 * merely stopping. At once when nothing was mounted with a feed under
 * `signal`; call it after aborting (a signal never aborted never stops them).
 * Never rejects.
 */
export function mountsStopped(signal: AbortSignal): Promise<void> {
  return Promise.all(stopsUnder.get(signal) ?? []).then(() => undefined);
}

/**
 * `service` with `databaseRole` as its `auth` block's database settings ({@link MountOptions.databaseRole}), or
 * `service` itself when none is given.
 * @throws AuthConfigError when the service has no `auth` block: its roles are what the database acts as
 */
function withDatabaseRole(
  service: ServiceDescriptor,
  databaseRole: DatabaseRoleDescriptor | undefined,
): ServiceDescriptor {
  if (databaseRole === undefined) return service;
  if (!service.auth)
    throw new AuthConfigError(
      "databaseRole needs an auth block: the roles it declares are the database roles requests act as",
    );
  return { ...service, auth: { ...service.auth, database: databaseRole } };
}

/** The per-resource cap of {@link MountOptions.resourceConcurrency}, or undefined for none. */
function concurrencyCap(options: MountOptions): number | undefined {
  if (options.resourceConcurrency === false) return undefined;
  if (typeof options.resourceConcurrency === "number") return Math.max(1, Math.floor(options.resourceConcurrency));
  const capacity = options.db.limits?.capacity;
  return capacity !== undefined && capacity > 1 ? Math.ceil(capacity / 2) : undefined;
}

/**
 * Registers the routes of every table that has a resource block.
 *
 * Before anything is registered, the hooks are checked against the schema
 * (spec: Column capabilities, last paragraph): every served table, and every
 * table a served one expands onto, that declares `@@scoped` must have a
 * BeforeQuery hook or a declared access rule (a soft-delete column needs
 * neither: resc leaves marked rows out itself, docs/decisions/1367-access-rules.md),
 * and every hook must name a table of the schema.
 *
 * @returns `{ok: true}`, or every registration error found, each naming the
 *   resource, the table and the declaration requiring the hook; nothing is
 *   mounted then. Never throws for a registration problem.
 * @throws AuthConfigError when the `auth` block's settings (with {@link MountOptions.auth}'s overrides)
 *   cannot verify any token, naming the setting and the environment variable, or its `database` settings
 *   (or {@link MountOptions.databaseRole}) name a role PostgreSQL cannot have, or are given to a service
 *   without an `auth` block (docs/decisions/1368-database-row-level-security.md); nothing is mounted then
 */
export function mountService(app: Hono, given: ServiceDescriptor, options: MountOptions): MountResult {
  const service = withDatabaseRole(given, options.databaseRole);
  // Declared access rules become hooks, composed with the application's (docs/decisions/1367-access-rules.md).
  const hooks = withDeclaredRules(service, options.hooks ?? {});
  const base = (options.basePath ?? "").replace(/\/$/, "");
  const errors = registrationErrors(service, hooks, base);
  for (const message of webhookProblems(service, options.webhooks?.subscriptions ?? []))
    errors.push({ kind: "invalid-webhook", resource: "webhooks", table: "", message });
  if (errors.length > 0) return { ok: false, errors };
  // ── Authentication (docs/decisions/1367-access-rules.md): made before any route, so settings that cannot
  // verify a token throw (AuthConfigError) with nothing mounted; used on each served resource's paths only.
  const authenticate = resourceAuthentication(service, options.auth);
  // The database-role mode's role names and settings (docs/decisions/1368-database-row-level-security.md).
  if (service.auth) checkDatabaseRoles(service.auth);
  // ── end of authentication.
  const limit = preparesNoHeaders(
    limitBody(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, (c) => {
      // The unread rest of the body is still on the socket: the connection cannot carry
      // another request, so say so instead of announcing keep-alive (docs/http.md).
      const res = problemResponse(
        c,
        problem("body-too-large", "The request body is larger than this service accepts.", [
          { location: "body", detail: "too large" },
        ]),
      );
      res.headers.set("connection", "close");
      return res;
    }),
  );
  const keys: IdempotencyOptions = {
    ...(options.idempotencyRetentionSeconds === undefined
      ? {}
      : { retentionSeconds: options.idempotencyRetentionSeconds }),
    ...(options.idempotencyScope === undefined ? {} : { scope: options.idempotencyScope }),
  };
  const sink = options.logError ?? ((_e: unknown, r: FaultReport) => defaultFaultLogger(r));
  const cap = concurrencyCap(options);
  const wait = options.db.limits?.acquireTimeoutMillis ?? 5000;
  const feed = service.tables.some((t) => t.resource?.events) ? startFeed(service, options, hooks, sink) : undefined;
  const plain = !contextReachesApplication(hooks, options);
  for (const table of service.tables) {
    const res = table.resource;
    if (!res) continue;
    const collectionPath = base + res.path;
    const logError = (e: unknown, c: Context, p?: ProblemError): void =>
      sink(e, {
        status: p?.status ?? 500,
        kind: p?.kind ?? "after-commit-hook",
        resource: collectionPath,
        method: c.req.method,
        requestId: requestIdOf(c),
        error: e,
      });
    const rc: ResourceContext = { service, table, db: options.db, hooks, collectionPath, logError };
    if (options.readDb) rc.readDb = options.readDb;
    const admission = cap === undefined ? undefined : createAdmission(cap, wait, collectionPath);
    if (admission) rc.admission = admission;
    if (options.hookData) rc.hookData = options.hookData as (c: Context) => HookData | undefined;
    // `/:id`, or one segment per key column of a composite key (docs/decisions/1376-composite-key-address.md).
    const item = itemPattern(collectionPath, table);
    // Authentication: `/films/*` also matches `/films` in Hono's routers (test/auth/mount.test.ts).
    if (authenticate) app.use(`${collectionPath}/*`, authenticate);
    if (res.ops.list) app.get(collectionPath, route(rc, handleList, admission, plain, "list"));
    // Before the item route, which it shadows for a key spelled `events` (docs/decisions/1337-change-feed.md).
    // Not admitted: a stream holds no connection, and would hold a slot for its whole life.
    if (res.events && feed)
      app.get(`${collectionPath}/events`, route(rc, eventsHandler(feed, options.events), undefined, plain, "events"));
    // The read admits each statement it sends, not each request (decision 1348).
    if (res.ops.read) app.get(item, route(rc, handleRead, undefined, plain, "read"));
    if (res.ops.create)
      app.post(collectionPath, limit, route(rc, idempotent(handleCreate, keys), admission, plain, "create"));
    if (res.ops.update) app.patch(item, limit, route(rc, handleUpdate, admission, plain, "update"));
    if (res.ops.delete) app.delete(item, route(rc, handleDelete, admission, plain, "delete"));
    // docs/decisions/1333-filtered-writes.md: opt-in, on the collection path.
    if (res.filteredWrites && res.ops.update)
      app.patch(collectionPath, limit, route(rc, handleFilteredUpdate, admission, plain, "update"));
    if (res.filteredWrites && res.ops.delete)
      app.delete(collectionPath, route(rc, handleFilteredDelete, admission, plain, "delete"));
    // Declared actions are POST only, and no item route takes POST, so `/{id}/<name>` and
    // `/<name>` cannot meet another route (docs/decisions/1334-declared-actions.md).
    for (const action of res.actions ?? []) {
      app.post(
        actionPath(collectionPath, action, ":id"),
        limit,
        // An action's implementation receives the request's context: never declared header-free.
        route(rc, idempotent(actionHandler(action), keys), admission, false, action.name),
      );
    }
  }
  return { ok: true };
}
