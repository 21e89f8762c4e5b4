/**
 * Production operations for any Hono app that serves a resc module (docs/deploy.md): request ids, one structured log line per
 * request (pino), `/live`, `/ready`, `/metrics` (Prometheus), and a fault
 * sink for `mountService` that logs and counts database faults. `resc
 * serve` uses it; so does an application that mounts the generated module
 * itself (`examples/tracker`). Imported as `resc/ops`, so an application
 * that wants none of it loads neither pino nor prom-client.
 */
import type { Hono } from "hono";
import { matchedRoutes } from "hono/route";
import pino, { type Logger } from "pino";
import type { Registry } from "prom-client";
import type { Executor } from "../exec/executor.js";
import { isUnavailable } from "../exec/faults.js";
import { formatFault, type FaultReport } from "../http/fault-log.js";
import { createMetrics, type PoolFigures, type ServiceMetrics } from "./metrics.js";
import { loggedTarget } from "./redact.js";
import { assignRequestId, echoRequestId } from "../http/request-id.js";
import { preparesNoHeaders } from "../http/plain-answer.js";
import { principalOf } from "../auth/principal.js";

export { loggedTarget, SECRET_PARAMS } from "./redact.js";
export { answerProblems } from "./fallbacks.js";
export { answerClientErrors, parserProblem, type ClientErrorSource } from "./client-errors.js";
export { stopOnSignal, type ClosableServer, type StopOptions } from "./shutdown.js";
export { createMetrics, type ServiceMetrics, type PoolFigures } from "./metrics.js";

/** Options of {@link withOperations}. */
export interface OperationsOptions {
  /** The database `/ready` checks with `SELECT 1`. */
  db: Executor;
  /** The pool whose figures `/metrics` reports (a `PgExecutor`'s `pool`); none on PGlite. */
  pool?: PoolFigures;
  /** Further readiness checks; each returns problems (empty: ready), e.g. the schema check. */
  readiness?: () => Promise<string[]>;
  /** More to show in `/ready`'s body without changing its status, e.g. which read replica is down. */
  details?: () => Record<string, unknown>;
  /** The logger; default pino at `level` on stdout. */
  logger?: Logger;
  /** pino level (`fatal` … `trace`, `silent`); default `info`. */
  level?: string;
  /**
   * Log a JSON line per request; default true. An application with a
   * request log of its own (the tracker's, for a terminal) turns it off and
   * keeps ids, metrics, health and the fault log.
   */
  logRequests?: boolean;
  /** Paths of the operational routes; defaults `/live`, `/ready`, `/metrics`. */
  paths?: { live?: string; ready?: string; metrics?: string };
  /**
   * The text `/metrics` answers, given this process's registry; default
   * that registry's. `resc serve --workers N` answers every worker's
   * figures aggregated (cli/serve/cluster-metrics.ts).
   */
  metricsText?: (local: Registry) => Promise<string>;
}

/** What {@link withOperations} gives back. */
export interface Operations {
  logger: Logger;
  metrics: ServiceMetrics;
  /** The `logError` to pass to `mountService` (or a generated `mount`): logs each fault as one line and counts it. */
  logError: (e: unknown, report: FaultReport) => void;
  /** Requests being served right now (for a graceful shutdown). */
  readonly inFlight: number;
  /**
   * Starts draining, before a shutdown: `/ready` answers 503 at once (so a
   * load balancer or Kubernetes stops sending new requests here) while
   * every other route keeps serving, and each response carries
   * `Connection: close`, so a keep-alive client opens its next request
   * elsewhere instead of reusing a connection that is about to close
   * (docs/decisions/1252-graceful-drain.md).
   */
  drain(): void;
  /** True once {@link Operations.drain} was called. */
  readonly draining: boolean;
}

/** The route template a request matched (`/films/:id`), or `unmatched`. */
function routeOf(c: Parameters<Parameters<Hono["use"]>[1]>[0]): string {
  const routes = matchedRoutes(c);
  // Hono leaves `routeIndex` at the last handler it ran: the one that answered. Several routes may match one path
  // (`/orders/events` and `/orders/:id`), so the last matched is not the answering one (test/ops/route-label.test.ts).
  const answered = routes[c.req.routeIndex];
  if (answered && answered.method !== "ALL") return answered.path;
  // A middleware answered (a refusal before any route): the route the request was for.
  const handlers = routes.filter((r) => r.method !== "ALL");
  return handlers.length > 0 ? handlers[handlers.length - 1]!.path : "unmatched";
}

/**
 * Adds request ids, request logging, metrics and the health routes to
 * `app`. Call it before mounting the API routes, so the middleware sees
 * every request. Never logs a header, a body or a secret query value. A
 * request line names the caller as `sub` when the request got a principal
 * with a subject (docs/decisions/1367-access-rules.md).
 */
export function withOperations(app: Hono, options: OperationsOptions): Operations {
  const logger =
    options.logger ??
    pino({
      level: options.level ?? "info",
      base: { pid: process.pid },
      redact: ["req.headers.authorization", "req.headers.cookie"],
    });
  const metrics = createMetrics(options.pool);
  const paths = { live: "/live", ready: "/ready", metrics: "/metrics", ...options.paths };
  let inFlight = 0;
  let draining = false;

  const opsPaths = new Set(Object.values(paths));
  // One middleware for the request id, the count in flight, the metrics and the log line: each
  // middleware is one more async frame per request (decision 1341). It prepares no header before the
  // answer is built (the id goes into the answer's record), so answers may keep a plain record (decision 1352).
  app.use(
    preparesNoHeaders(async (c, next) => {
      inFlight++;
      const start = performance.now();
      const id = assignRequestId(c);
      try {
        await next();
      } finally {
        inFlight--;
        echoRequestId(c, id);
        if (draining) c.res.headers.set("connection", "close");
        const seconds = (performance.now() - start) / 1000;
        const route = routeOf(c);
        metrics.request(c.req.method, route, c.res.status, seconds);
        // The line's fields are built only when it will be written: at `warn`, parsing the URL twice per
        // request was a measurable part of the layer's cost (README, "Tuning").
        if (options.logRequests !== false && logger.isLevelEnabled("info") && !opsPaths.has(c.req.path)) {
          // The caller, when a principal with a subject was set (docs/decisions/1367-access-rules.md).
          const subject = principalOf(c)?.subject;
          logger.info(
            {
              req_id: id,
              method: c.req.method,
              target: loggedTarget(c.req.url),
              route,
              status: c.res.status,
              ms: Math.round(seconds * 1000),
              ...(subject ? { sub: subject } : {}),
            },
            "request",
          );
        }
      }
    }),
  );
  app.get(paths.live, (c) => c.json({ status: "live" }));
  app.get(paths.ready, async (c) => {
    if (draining) return c.json({ status: "draining", problems: ["the service is shutting down"] }, 503);
    const problems: string[] = [];
    try {
      await options.db.query({ text: "SELECT 1", values: [] });
      if (options.readiness) problems.push(...(await options.readiness()));
    } catch (e) {
      // Said in our words: a probe's body is shown to whoever reads the health page, the driver's text
      // (addresses, ports) goes to the log.
      const said = isUnavailable(e) ? "the database cannot be reached" : "the database did not answer a check";
      logger.warn({ err: e instanceof Error ? e.message : String(e) }, `readiness: ${said}`);
      problems.push(`database: ${said}`);
    }
    return c.json(
      { status: problems.length === 0 ? "ready" : "not ready", problems, ...(options.details?.() ?? {}) },
      problems.length === 0 ? 200 : 503,
    );
  });
  const metricsText = options.metricsText ?? ((local: Registry) => local.metrics());
  app.get(paths.metrics, async (c) =>
    c.body(await metricsText(metrics.registry), 200, { "content-type": metrics.registry.contentType }),
  );

  return {
    logger,
    metrics,
    logError(e, report) {
      metrics.databaseError(report.kind);
      logger.error(
        {
          req_id: report.requestId,
          status: report.status,
          kind: report.kind,
          resource: report.resource,
          method: report.method,
          ...(logger.isLevelEnabled("debug") && e instanceof Error ? { stack: e.stack } : {}),
        },
        formatFault(report),
      );
    },
    get inFlight() {
      return inFlight;
    },
    drain() {
      draining = true;
    },
    get draining() {
      return draining;
    },
  };
}
