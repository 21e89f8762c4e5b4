/**
 * The steps of `resc serve`'s start that are not the order of the start
 * itself: opening the primary and the read replicas, loading the
 * middleware module, deciding whether what was found refuses the start,
 * and serving until a signal, draining first
 * (docs/decisions/1252-graceful-drain.md, 1302-read-replicas.md). Loaded by
 * the command's `run()`, never at `resc`'s start (decision 1323).
 */
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { serve } from "@hono/node-server";
import type { Hono, MiddlewareHandler } from "hono";
import { createPgExecutor, type PgExecutor } from "../../runtime/exec/pg.js";
import { createReplicaRouter, type ReplicaRouter } from "../../runtime/exec/replicas.js";
import type { JwtDescriptor } from "../../runtime/descriptor.js";
import type { MountResult } from "../../runtime/http/mount.js";
import type { Operations } from "../../runtime/ops/index.js";
import { answerClientErrors } from "../../runtime/ops/client-errors.js";
import { listenFailure } from "../listen-failure.js";
import { databaseAddress } from "./database-address.js";

/** The database settings of `resc serve`'s flags. */
export interface PoolFlags {
  "pool-size": number;
  "statement-timeout": number;
  "lock-timeout": number;
  pgbouncer: boolean;
  /** Named prepared statements per connection; absent: the executor's default (decision 1347). */
  "prepared-statements"?: number;
}

/** `maxPreparedStatements` when `--prepared-statements` was given (docs/decisions/1347-pgbouncer-prepared-statements.md). */
function prepared(flags: PoolFlags): { maxPreparedStatements?: number } {
  return flags["prepared-statements"] === undefined ? {} : { maxPreparedStatements: flags["prepared-statements"] };
}

/** The primary's pool, from the flags. */
export function openPrimary(url: string, flags: PoolFlags & { "listen-database-url"?: string }): PgExecutor {
  return createPgExecutor({
    connectionString: url,
    ...(flags["listen-database-url"] ? { listenConnectionString: flags["listen-database-url"] } : {}),
    max: flags["pool-size"],
    statementTimeoutMillis: flags["statement-timeout"],
    lockTimeoutMillis: flags["lock-timeout"],
    pgbouncer: flags.pgbouncer,
    ...prepared(flags),
  });
}

/**
 * Reads go to the replicas in turn, falling back to the primary when one is
 * down (decision 1302); none without `--read-database-url`.
 */
export function openReplicas(
  urls: readonly string[],
  flags: PoolFlags,
  primary: PgExecutor,
): ReplicaRouter | undefined {
  const replicas = urls.map((u) => {
    return {
      name: databaseAddress(u),
      db: createPgExecutor({
        connectionString: u,
        max: flags["pool-size"],
        statementTimeoutMillis: flags["statement-timeout"],
        pgbouncer: flags.pgbouncer,
        ...prepared(flags),
      }),
    };
  });
  return replicas.length > 0 ? createReplicaRouter(replicas, primary) : undefined;
}

/**
 * The default export of `--middleware FILE`.
 * @throws Error naming the file when it cannot be loaded or exports no function
 */
export async function loadMiddleware(file: string): Promise<MiddlewareHandler> {
  const mod = (await import(pathToFileURL(path.resolve(file)).href).catch((e: Error) => {
    throw new Error(`cannot load middleware module ${file}: ${e.message}`);
  })) as { default?: unknown };
  if (typeof mod.default !== "function") throw new Error(`${file} has no default export that is a Hono middleware`);
  return mod.default as MiddlewareHandler;
}

/** The `--jwt-…` and `--jwks-url` flags of `resc serve`. */
export interface JwtFlags {
  "jwt-secret-env"?: string;
  "jwks-url"?: string;
  "jwt-public-key-env"?: string;
  "jwt-issuer"?: string;
  "jwt-audience"?: string;
}

/**
 * The `jwt` settings the flags override (`MountOptions.auth.jwt`;
 * docs/decisions/1367-access-rules.md): only those given.
 */
export function jwtOverrides(flags: JwtFlags): Partial<JwtDescriptor> {
  const given: Partial<JwtDescriptor> = {};
  if (flags["jwt-secret-env"] !== undefined) given.secretEnv = flags["jwt-secret-env"];
  if (flags["jwks-url"] !== undefined) given.jwksUrl = flags["jwks-url"];
  if (flags["jwt-public-key-env"] !== undefined) given.publicKeyEnv = flags["jwt-public-key-env"];
  if (flags["jwt-issuer"] !== undefined) given.issuer = flags["jwt-issuer"];
  if (flags["jwt-audience"] !== undefined) given.audience = flags["jwt-audience"];
  return given;
}

/** `make()`'s value, or the message of what it threw as `failure` (a start refusal's line). */
export function attempt<T extends object>(make: () => T): T | { failure: string } {
  try {
    return make();
  } catch (e) {
    return { failure: e instanceof Error ? e.message : String(e) };
  }
}

/** What the schema check found: the mismatches, or why the database could not be asked. */
export type SchemaCheck = { mismatches: string[] } | { unreachable: string };

/**
 * Why the start is refused, as the lines of its fatal log entry, or
 * undefined to serve: resc serve never alters the database, so a missing
 * table or column stops it, as does a hook the schema needs and the hooks
 * module lacks.
 */
export function startRefusal(file: string, checked: SchemaCheck, mounted: MountResult): string[] | undefined {
  if ("unreachable" in checked) return [`cannot reach the database: ${checked.unreachable}`];
  if (checked.mismatches.length > 0)
    return [
      `the database does not match ${file}:`,
      ...checked.mismatches.map((m) => `  - ${m}`),
      "apply the migrations first: resc migrate deploy",
    ];
  if (!mounted.ok) return mounted.errors.map((e) => e.message);
  return undefined;
}

/** What {@link serveUntilStopped} needs. */
export interface ServeOptions {
  app: Hono;
  ops: Operations;
  host: string;
  port: number;
  /** Seconds to keep serving after SIGTERM with /ready at 503 (SIGINT: none). */
  drainSeconds: number;
  /** Milliseconds in-flight requests may take after the drain before connections are cut. */
  shutdownTimeoutMs: number;
  /** Called once the port is bound, with the port. */
  onListening: (port: number) => void;
  /** Closes the databases; called when the server has closed or failed to listen. */
  close: () => Promise<unknown>;
  /** Called when the server stops accepting: ends the change feed's streams, which would otherwise hold it open. */
  closing?: () => void;
}

/**
 * Listens, then waits for SIGTERM or SIGINT: drains (SIGTERM only), stops
 * accepting, lets in-flight requests finish within the shutdown timeout and
 * closes the databases.
 * @returns undefined after a clean stop, or the sentence saying why the port could not be bound
 */
export function serveUntilStopped(o: ServeOptions): Promise<string | undefined> {
  return new Promise<string | undefined>((resolve) => {
    const server = serve({ fetch: o.app.fetch, hostname: o.host, port: o.port }, (info) => o.onListening(info.port));
    // What Node's parser refuses is a problem document too (docs/decisions/1362-parser-refusals.md).
    answerClientErrors(server);
    server.once("error", (e: NodeJS.ErrnoException) => {
      void o.close().finally(() => resolve(listenFailure(e, o.port)));
    });
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      // SIGTERM is what an orchestrator sends while it takes the node out of rotation: keep serving through the
      // drain, /ready at 503, so no client meets a closed port. SIGINT is a person at a terminal: stop now.
      const drainSeconds = signal === "SIGTERM" ? o.drainSeconds : 0;
      o.ops.drain();
      o.ops.logger.info(
        { signal, in_flight: o.ops.inFlight, drain_seconds: drainSeconds },
        `draining: /ready answers 503; serving ${drainSeconds} s more before closing`,
      );
      setTimeout(close, drainSeconds * 1000).unref();
    };
    const close = (): void => {
      o.ops.logger.info({ in_flight: o.ops.inFlight }, "stopping: no new connections; finishing in-flight requests");
      o.closing?.();
      // Stop accepting; idle keep-alive connections are closed now, busy ones once their response is sent
      // (every response since the drain began said Connection: close).
      server.close(() => void o.close().finally(() => resolve(undefined)));
      const s = server as unknown as { closeIdleConnections?: () => void; closeAllConnections?: () => void };
      s.closeIdleConnections?.();
      const idle = setInterval(() => s.closeIdleConnections?.(), 100);
      setTimeout(() => {
        o.ops.logger.warn({ in_flight: o.ops.inFlight }, "shutdown timeout: cutting the remaining connections");
        s.closeAllConnections?.();
      }, o.shutdownTimeoutMs).unref();
      server.once("close", () => clearInterval(idle));
    };
    process.once("SIGTERM", () => stop("SIGTERM"));
    process.once("SIGINT", () => stop("SIGINT"));
  });
}
