// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import type { Cluster } from "node:cluster";
import { databaseUrl, NO_DATABASE_URL_FLAG } from "./database-url.js";
import type { HooksModule } from "./serving/hooks-module.js";
import type { SchemaCheck } from "./serve/steps.js";
import type { ServeAppOptions } from "./serve/app.js";

/**
 * `resc serve FILE`: the production twin of `resc dev` (docs/deploy.md). Compiles once, never changes the database (refuses to
 * start, listing the mismatches, when it lacks what the schema declares),
 * serves with request ids, JSON logs, `/live`, `/ready`, `/metrics`, and
 * stops gracefully on SIGTERM.
 */
export default class Serve extends RescCommand {
  static override description =
    "Serve a .resource file in production: a PostgreSQL server, health, metrics, JSON logs.";
  static override examples = [
    "DATABASE_URL=postgres://app@db/app <%= config.bin %> serve schema.resource --host 0.0.0.0 --port 8080",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    "database-url": Flags.string({ description: "the PostgreSQL to serve (default: $DATABASE_URL)" }),
    host: Flags.string({ description: "address to listen on", default: "127.0.0.1" }),
    port: Flags.integer({ description: "TCP port", default: 3000, min: 0, max: 65535 }),
    "pool-size": Flags.integer({ description: "database connections", default: 10, min: 1 }),
    "statement-timeout": Flags.integer({
      description: "server-side statement timeout, ms (504)",
      default: 30000,
      min: 0,
    }),
    "lock-timeout": Flags.integer({
      description: "how long a statement waits for a lock, ms (503)",
      default: 3000,
      min: 0,
    }),
    hooks: Flags.string({ description: "module exporting `hooks` (and optionally `hookData`), as for resc dev" }),
    middleware: Flags.string({
      description: "module whose default export is a Hono middleware run before the API routes (authentication)",
    }),
    "log-level": Flags.string({
      description: "pino log level",
      default: process.env.LOG_LEVEL ?? "info",
      options: ["fatal", "error", "warn", "info", "debug", "trace", "silent"],
    }),
    "read-database-url": Flags.string({
      description: "a read replica for list and read requests (repeatable); writes stay on the primary",
      multiple: true,
    }),
    pgbouncer: Flags.boolean({
      description:
        "the database URL is a pooler in transaction mode: no session settings (timeouts set on the role), no prepared statements unless --prepared-statements",
    }),
    "prepared-statements": Flags.integer({
      description:
        "distinct statement shapes run as named prepared statements per connection (default 200, or 0 with --pgbouncer; behind PgBouncer 1.21+ set its max_prepared_statements)",
      min: 0,
    }),
    workers: Flags.integer({
      description: "processes serving the same port (node:cluster); each has its own pool of --pool-size",
      default: 1,
      min: 1,
    }),
    cache: Flags.boolean({
      description:
        "reuse the schema compiled at an earlier start while the file and resc are unchanged (node_modules/.cache/resc)",
      default: true,
      allowNo: true,
    }),
    "drain-seconds": Flags.integer({
      description:
        "on SIGTERM, how long to keep serving with /ready at 503 before closing, so load balancers stop sending first",
      default: 5,
      min: 0,
    }),
    "shutdown-timeout": Flags.integer({
      description: "after the drain, how long in-flight requests may take before connections are cut, ms",
      default: 10000,
      min: 0,
    }),
    "idempotency-retention": Flags.integer({
      description: "how long an answer stored under an Idempotency-Key answers retries, seconds",
      default: 86400,
      min: 1,
    }),
    "listen-database-url": Flags.string({
      description:
        "where the change feed LISTENs, when --database-url names a pooler in transaction mode (PgBouncer), which cannot carry LISTEN",
    }),
    "event-retention": Flags.integer({
      description: "how long captured changes are kept for resuming streams and webhooks, seconds",
      default: 86400,
      min: 60,
    }),
    // The auth block's jwt settings, overridden (docs/decisions/1367-access-rules.md): secrets only by variable name.
    "jwt-secret-env": Flags.string({
      description: "the environment variable holding the HS* secret (replaces the schema's jwt key source)",
    }),
    "jwks-url": Flags.string({
      description: "where the JWK set verifying RS*/PS*/ES*/EdDSA tokens is fetched (replaces the schema's key source)",
    }),
    "jwt-public-key-env": Flags.string({
      description: "the environment variable holding a PEM (SPKI) public key (replaces the schema's key source)",
    }),
    "jwt-issuer": Flags.string({ description: "the iss every bearer token must carry (replaces the schema's)" }),
    "jwt-audience": Flags.string({ description: "the aud every bearer token must carry (replaces the schema's)" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Serve);
    // node:cluster (and child_process under it) only for --workers: every command's start loads this file (decision 1323).
    const cluster = flags.workers > 1 ? (await import("node:cluster")).default : undefined;
    if (cluster?.isPrimary) return this.supervise(cluster, flags.workers, flags);
    const { serveLoggers, logDiagnostic } = await import("./serve/log.js");
    const logs = serveLoggers(flags["log-level"]);
    const fail = (lines: string[]): never => {
      logs.err.fatal(lines.join("\n"));
      return this.exit(1);
    };
    const url = databaseUrl(flags["database-url"]);
    if (!url) fail([`${NO_DATABASE_URL_FLAG} (resc serve needs a PostgreSQL server; resc dev has an embedded one)`]);
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const steps = await import("./serve/steps.js");
    const { connectionStringProblem } = await import("./serve/database-address.js");
    const unreadable = [
      connectionStringProblem(flags["database-url"] !== undefined ? "--database-url" : "DATABASE_URL", url!),
      ...(flags["read-database-url"] ?? []).map((u) => connectionStringProblem("--read-database-url", u)),
      ...(flags["listen-database-url"]
        ? [connectionStringProblem("--listen-database-url", flags["listen-database-url"])]
        : []),
    ].filter((p): p is string => p !== undefined);
    if (unreadable.length > 0) fail(unreadable);
    const db = steps.openPrimary(url!, flags);
    // A few connections open while the rest loads and the schema compiles, enough for the catalog check and the
    // first requests; the rest of the pool opens once the server listens (bench/COMPILER.md: launch to first answer).
    const early = Math.min(4, flags["pool-size"]);
    const warming = db.warmUp(early).catch(() => 0);
    const failClosing = async (lines: string[]): Promise<never> => {
      await db.close();
      return fail(lines);
    };
    // The schema first (an unchanged file is not compiled again, nor the grammar and the validator loaded: decision
    // 1326), so the catalog is read while the rest of the server loads and is built. Nothing listens before the answer.
    const [{ loadSchemaCached }, { findSchemaMismatches }] = await Promise.all([
      import("./schema-cache.js"),
      import("../catalog/index.js"),
    ]);
    const cached = await loadSchemaCached(args.file, (s) => process.stderr.write(s), {
      cache: flags.cache,
      record: (d) => logDiagnostic(logs.err, d),
    });
    const r = cached.result;
    if (!r.ok) await failClosing([r.message]);
    const schema = r.ok ? r.schema : undefined!;
    // resc serve never alters the database: a missing table or column stops the start (use resc migrate deploy).
    const checking = findSchemaMismatches(db, schema).then(
      (mismatches): SchemaCheck => ({ mismatches }),
      (e: Error): SchemaCheck => ({ unreachable: e.message }),
    );
    const [{ buildDescriptor }, { createServeApp }, { loadHooksModule }] = await Promise.all([
      import("../compiler/descriptor.js"),
      import("./serve/app.js"),
      import("./serving/hooks-module.js"),
    ]);
    const service = buildDescriptor(schema);
    let loaded: HooksModule = { hooks: {} };
    if (flags.hooks) loaded = await loadHooksModule(flags.hooks, service).catch((e: Error) => failClosing([e.message]));
    const middleware = flags.middleware
      ? await steps.loadMiddleware(flags.middleware).catch((e: Error) => failClosing([e.message]))
      : undefined;
    const readDb = steps.openReplicas(flags["read-database-url"] ?? [], flags, db);
    const closeAll = (): Promise<unknown> => Promise.all([db.close(), readDb?.close()]);

    let askCluster: (() => Promise<string>) | undefined;
    const stopping = new AbortController();
    const jwt = steps.jwtOverrides(flags);
    if (!service.auth && Object.keys(jwt).length > 0)
      await failClosing([`--jwt-… and --jwks-url override the schema's auth block, and ${args.file} declares none`]);
    const appOptions: ServeAppOptions = {
      schema,
      service,
      db,
      ...(readDb ? { readDb } : {}),
      hooks: loaded.hooks,
      ...(loaded.hookData ? { hookData: loaded.hookData } : {}),
      ...(loaded.idempotencyScope ? { idempotencyScope: loaded.idempotencyScope } : {}),
      ...(middleware ? { middleware } : {}),
      logLevel: flags["log-level"],
      logger: logs.out,
      idempotencyRetentionSeconds: flags["idempotency-retention"],
      events: { retentionSeconds: flags["event-retention"] },
      ...(loaded.webhooks ? { webhooks: loaded.webhooks } : {}),
      signal: stopping.signal,
      // A worker's /metrics: the whole cluster's figures, asked of the primary at each scrape.
      ...(cluster?.isWorker ? { metricsText: () => askCluster!() } : {}),
      // The flags' jwt settings; development tokens (resc token) are refused (docs/decisions/1367-access-rules.md).
      auth: { jwt },
    };
    // Settings that cannot verify a token (an AuthConfigError naming the setting and variable) stop the start.
    const built = steps.attempt(() => createServeApp(appOptions));
    if ("failure" in built) await failClosing([built.failure]);
    const { app, ops, mounted } = built as ReturnType<typeof createServeApp>;
    // Offered to the primary's gathering from the start: it asks every worker at each scrape.
    if (cluster?.isWorker)
      askCluster = (await import("./serve/cluster-metrics.js")).clusterMetricsText(ops.metrics.registry);
    const refusal = steps.startRefusal(args.file, await checking, mounted);
    if (refusal) {
      await closeAll();
      fail(refusal);
    }
    await warming;

    const failure = await steps.serveUntilStopped({
      app,
      ops,
      host: flags.host,
      port: flags.port,
      drainSeconds: flags["drain-seconds"],
      shutdownTimeoutMs: flags["shutdown-timeout"],
      // Once stopping, the feed and webhooks finish their last statements before the pools close (no fault logged).
      close: async () => {
        if (stopping.signal.aborted) await (await import("../runtime/http/mount.js")).mountsStopped(stopping.signal);
        await closeAll();
      },
      closing: () => stopping.abort(),
      onListening: (port) => {
        if (flags["pool-size"] > early) void db.warmUp().catch(() => 0);
        void cached.persist();
        ops.logger.info(
          { file: args.file, host: flags.host, port, schema_cache: cached.state },
          `serving ${args.file} on http://${flags.host}:${port}`,
        );
      },
    });
    if (failure !== undefined) fail([failure]);
    // A cluster worker's channel to the primary would keep it alive: it is done once drained.
    if (cluster?.isWorker) process.exit(0);
  }

  /**
   * The primary of `--workers N`: forks N processes running this same
   * command (they share the listening port through node:cluster) and passes
   * SIGTERM/SIGINT on, exiting once they have. A worker that exits before it
   * ever listened (a start-up failure: the database lacks the schema, say)
   * stops the others and the primary exits 1; one that dies while serving is
   * forked again after a backoff (1 s, doubling to 30 s, back to 1 s once a
   * worker has served a minute), each logged as a JSON line
   * (docs/decisions/1300-workers.md).
   */
  private async supervise(
    cluster: Cluster,
    n: number,
    flags: { "shutdown-timeout": number; "drain-seconds": number; "log-level": string },
  ): Promise<void> {
    const logger = (await import("./serve/log.js")).serveLoggers(flags["log-level"], "primary").out;
    (await import("./serve/cluster-metrics.js")).answerClusterMetrics(cluster);
    let stopping = false;
    let failed = false;
    let backoffMs = 1000;
    const live = new Set<import("node:cluster").Worker>();
    const done = new Promise<void>((resolve) => {
      const fork = (slot: number): void => {
        const w = cluster.fork();
        live.add(w);
        let listening = false;
        let since = 0;
        w.once("listening", () => {
          listening = true;
          since = Date.now();
        });
        w.once("exit", (code, signal) => {
          live.delete(w);
          if (!stopping && !listening) {
            logger.error({ worker: slot, code, signal }, "a worker failed to start; stopping the others");
            failed = true;
            stopAll("SIGTERM");
          } else if (!stopping) {
            if (Date.now() - since > 60_000) backoffMs = 1000;
            logger.error(
              { worker: slot, code, signal, restart_in_ms: backoffMs },
              `worker ${slot} exited while serving; starting another in ${backoffMs} ms`,
            );
            setTimeout(() => {
              if (!stopping) fork(slot);
              else if (live.size === 0) resolve();
            }, backoffMs);
            backoffMs = Math.min(backoffMs * 2, 30_000);
            return;
          }
          if (live.size === 0) resolve();
        });
      };
      for (let i = 1; i <= n; i++) fork(i);
    });
    const stopAll = (signal: NodeJS.Signals): void => {
      if (stopping) return;
      stopping = true;
      for (const w of live) if (!w.isDead()) w.process.kill(signal);
      // A worker that does not finish in time is not waited for.
      const graceMs = flags["drain-seconds"] * 1000 + flags["shutdown-timeout"] + 5000;
      setTimeout(() => process.exit(1), graceMs).unref();
    };
    process.once("SIGTERM", () => stopAll("SIGTERM"));
    process.once("SIGINT", () => stopAll("SIGINT"));
    await done;
    if (failed) this.exit(1);
  }
}
