/**
 * The app `resc serve` runs, built in one place so the benchmark measures
 * exactly it (bench/resc-server.ts): operations (request ids, logs, health,
 * metrics), problem documents for unknown routes and faults, an optional
 * middleware, the API routes and the OpenAPI document with its page.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { emitOpenApi } from "../../compiler/backends/openapi/index.js";
import type { Schema } from "../../language/ir.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { PgExecutor } from "../../runtime/exec/pg.js";
import type { ReplicaRouter } from "../../runtime/exec/replicas.js";
import type { Hooks } from "../../runtime/hooks.js";
import { mountDocs } from "../../runtime/http/docs.js";
import { mountService, type EventOptions, type MountAuthOptions, type MountResult } from "../../runtime/http/mount.js";
import type { WebhookSubscription } from "../../runtime/events/webhooks.js";
import { answerProblems, withOperations, type Operations } from "../../runtime/ops/index.js";
import { findSchemaMismatches } from "../../catalog/index.js";

/** What {@link createServeApp} needs. */
export interface ServeAppOptions {
  schema: Schema;
  service: ServiceDescriptor;
  db: PgExecutor;
  readDb?: ReplicaRouter;
  hooks?: Hooks;
  hookData?: (c: Context) => object | undefined;
  /** `MountOptions.idempotencyScope` (docs/decisions/1360-idempotency-scope.md). */
  idempotencyScope?: (c: Context) => unknown;
  middleware?: MiddlewareHandler;
  /** pino level. */
  logLevel: string;
  /** The logger; default pino at `logLevel` on stdout. */
  logger?: import("pino").Logger;
  /** What `/metrics` answers, given this process's registry (`OperationsOptions.metricsText`). */
  metricsText?: (local: import("prom-client").Registry) => Promise<string>;
  /** `MountOptions.idempotencyRetentionSeconds` (docs/decisions/1335-idempotency-keys.md). */
  idempotencyRetentionSeconds?: number;
  /** `MountOptions.events` (docs/decisions/1337-change-feed.md). */
  events?: EventOptions;
  /** `MountOptions.webhooks`; their counters go to `/metrics` (docs/decisions/1338-webhooks.md). */
  webhooks?: WebhookSubscription[];
  /** `MountOptions.signal`: aborted when the server stops accepting. */
  signal?: AbortSignal;
  /**
   * `MountOptions.auth` (docs/decisions/1367-access-rules.md): the flags' overrides of the `jwt`
   * settings; refused tokens are logged at `info` with their reason (never the token).
   */
  auth?: Omit<MountAuthOptions, "log">;
}

/**
 * Builds the app; `mounted` carries registration errors (nothing is mounted then).
 * @throws AuthConfigError when the `auth` settings cannot verify tokens (from `mountService`)
 */
export function createServeApp(o: ServeAppOptions): { app: Hono; ops: Operations; mounted: MountResult } {
  const app = new Hono();
  const ops = withOperations(app, {
    db: o.db,
    pool: o.db.pool,
    level: o.logLevel,
    ...(o.logger ? { logger: o.logger } : {}),
    readiness: async () => (await findSchemaMismatches(o.db, o.schema)).map((m) => `schema: ${m}`),
    ...(o.readDb ? { details: () => ({ replicas: o.readDb!.replicas() }) } : {}),
    ...(o.metricsText ? { metricsText: o.metricsText } : {}),
  });
  answerProblems(app, (e, c) => ops.logger.error({ err: e, req_id: c.get("requestId" as never) }, "unexpected error"));
  if (o.middleware) app.use(o.middleware);
  const mounted = mountService(app, o.service, {
    db: o.db,
    ...(o.readDb ? { readDb: o.readDb } : {}),
    ...(o.hooks ? { hooks: o.hooks } : {}),
    ...(o.hookData ? { hookData: o.hookData } : {}),
    ...(o.idempotencyScope ? { idempotencyScope: o.idempotencyScope } : {}),
    ...(o.idempotencyRetentionSeconds !== undefined
      ? { idempotencyRetentionSeconds: o.idempotencyRetentionSeconds }
      : {}),
    ...(o.events ? { events: o.events } : {}),
    ...(o.webhooks && o.webhooks.length > 0
      ? { webhooks: { subscriptions: o.webhooks, registry: ops.metrics.registry } }
      : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    auth: {
      ...o.auth,
      log: (refusal, c) =>
        ops.logger.info(
          { req_id: c.get("requestId" as never), reason: "reason" in refusal ? refusal.reason : "keys-unavailable" },
          `bearer token refused: ${refusal.message}`,
        ),
    },
    logError: ops.logError,
  });
  // Built at the first request for it: most starts never serve the document (bench/COMPILER.md).
  mountDocs(app, () => emitOpenApi(o.schema));
  return { app, ops, mounted };
}
