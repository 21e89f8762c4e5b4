import path from "node:path";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import { readFile } from "node:fs/promises";
import type { Schema } from "../language/ir.js";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import type { Executor } from "../runtime/exec/executor.js";
import type { HooksModule } from "./serving/hooks-module.js";
import type { MountAuthOptions } from "../runtime/auth/mounting.js";
import { listenFailure } from "./listen-failure.js";

/**
 * `resc dev FILE`: compiles in memory and serves on 127.0.0.1 (docs/decisions/0001-dev-database.md).
 * Embedded PGlite unless `--database-url` names a server, which must already
 * hold everything the schema declares. `--hooks MODULE` loads the hooks a
 * schema with `@@scoped` tables, `@stamped` columns or actions needs; without
 * them it refuses to start, printing every registration error
 * (docs/decisions/0603-dev-hooks-module.md). A `@soft_delete` table needs
 * none: resc leaves its marked rows out itself (docs/decisions/1367-access-rules.md).
 */
export default class Dev extends RescCommand {
  static override description = "Serve a .resource file over HTTP, on an embedded PostgreSQL or on --database-url.";
  static override examples = [
    "<%= config.bin %> dev spec.resource --seed examples/tracker/seed.sql --hooks dev-hooks.ts",
    "<%= config.bin %> dev fixtures/pagila/pagila.resource --database-url postgres://postgres@127.0.0.1/pagila",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    port: Flags.integer({
      description: "TCP port on 127.0.0.1 (default: PORT, else 3000)",
      env: "PORT",
      default: 3000,
      min: 0,
      max: 65535,
    }),
    "database-url": Flags.string({
      description: "use this PostgreSQL (nothing is applied to it) instead of the embedded one",
    }),
    seed: Flags.string({
      description:
        "SQL file run after the DDL when the embedded database is created (not on an existing one: see --reset)",
    }),
    "data-dir": Flags.string({ description: "where the embedded database keeps its files", default: ".resc/db" }),
    reset: Flags.boolean({ description: "delete the embedded database first and start fresh" }),
    watch: Flags.boolean({
      description:
        "on each save of FILE: recompile, migrate the embedded database, swap the routes; keep serving the last good schema on an error",
    }),
    "accept-data-loss": Flags.boolean({
      description:
        "when the schema changed, also apply steps that lose data in the embedded database (drops, narrowing types)",
    }),
    hooks: Flags.string({
      description:
        "TypeScript or JavaScript module exporting `hooks` (an object or a function of the service descriptor)",
    }),
  };

  /** Aborted when the server stops (`MountOptions.signal`). */
  private readonly stopping = new AbortController();

  /** `MountOptions.auth` of each schema mounted (docs/decisions/1367-access-rules.md). */
  private auth: (service: ServiceDescriptor) => MountAuthOptions = () => ({ development: true });

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Dev);
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { loadSchema } = await import("./load.js");
    const { buildDescriptor } = await import("../compiler/descriptor.js");
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    const service = buildDescriptor(r.schema);
    const loaded = await this.hooksFor(service, args.file, flags.hooks);
    // Development tokens accepted, the development secret standing in for an unset secret_env (decision 1367).
    const { developmentAuth } = await import("./dev/secret.js");
    const announced = new Set<string>();
    this.auth = (s) => developmentAuth(s, process.env, (l) => this.log(l), announced);
    // The port first: a second `resc dev` on a taken port stops here, before it reads or changes any database.
    const front = await this.bindPort(flags.port);
    let db: Executor;
    try {
      db = flags["database-url"]
        ? await this.openServer(flags["database-url"], r.schema, args.file)
        : await this.openEmbedded(r.schema, flags);
    } catch (e) {
      await front.close();
      this.fail((e as Error).message.split("\n"));
    }
    front.use(await this.routes(r.schema, service, db, loaded, front.close));
    const stopWatching = flags.watch ? await this.watch(args.file, db, loaded, front.use, flags) : () => {};
    this.log(
      `resc: serving ${args.file} at http://127.0.0.1:${front.port}${flags.watch ? " (watching for changes)" : ""}`,
    );
    const { stopOnSignal } = await import("../runtime/ops/shutdown.js");
    await stopOnSignal(front.server, {
      beforeClose: () => {
        stopWatching();
        // Change feed streams end with a `reconnect` event instead of holding the server open.
        this.stopping.abort();
      },
      // The feed and webhooks finish their last statements first: closed under them, they would log faults.
      close: async () => {
        const { mountsStopped } = await import("../runtime/http/mount.js");
        await mountsStopped(this.stopping.signal);
        await db.close();
      },
    });
  }

  /**
   * The application's hooks (`--hooks MODULE`), checked against what the
   * schema needs before any database is opened, so a missing hook fails
   * fast with every registration error (decision 0603).
   */
  private async hooksFor(service: ServiceDescriptor, file: string, module: string | undefined): Promise<HooksModule> {
    const { registrationErrors } = await import("../runtime/hooks/registration.js");
    const { withDeclaredRules } = await import("../runtime/access/hooks.js");
    const { loadHooksModule } = await import("./serving/hooks-module.js");
    let loaded: HooksModule = { hooks: {} };
    if (module) {
      try {
        loaded = await loadHooksModule(module, service);
      } catch (e) {
        this.fail([(e as Error).message]);
      }
    }
    // Checked as the mount will: declared access rules confine and stamp as hooks do (docs/decisions/1367-access-rules.md).
    const missing = registrationErrors(service, withDeclaredRules(service, loaded.hooks));
    if (missing.length > 0) {
      const n = missing.length;
      this.fail([
        `${file} cannot be served: ${n} registration error${n > 1 ? "s" : ""}`,
        ...missing.map((e) => `  - ${e.message}`),
        ...(module ? [] : ["pass the hooks with --hooks MODULE"]),
      ]);
    }
    return loaded;
  }

  /**
   * Binds 127.0.0.1:`port` answering 503 `/problems/starting` until `use`
   * hands it the routes; `use` again swaps them (--watch), requests in
   * flight keeping the app they started on (decision 1251).
   */
  private async bindPort(port: number): Promise<Front> {
    const { serve } = await import("@hono/node-server");
    const { problem } = await import("../runtime/problem.js");
    const { answerClientErrors } = await import("../runtime/ops/client-errors.js");
    const starting = problem("starting", "The service is starting: its database is being opened.");
    let current: FetchApp = startingApp(JSON.stringify(starting.toDocument()));
    const bound = await listen(serve, (req, env) => current.fetch(req, env), port);
    if ("failure" in bound) this.fail([bound.failure]);
    const { server } = bound;
    // What Node's parser refuses is a problem document too (docs/decisions/1362-parser-refusals.md).
    answerClientErrors(server);
    return {
      server,
      port: bound.port,
      use: (app) => {
        current = app;
      },
      close: () => new Promise((resolve) => server.close(() => resolve())),
    };
  }

  /** The routes and the documentation of `service` on `db`; a registration failure closes everything and stops. */
  private async routes(
    schema: Schema,
    service: ServiceDescriptor,
    db: Executor,
    loaded: HooksModule,
    closeFront: () => Promise<void>,
  ): Promise<FetchApp> {
    const { createDevApp } = await import("./dev/app.js");
    const { emitOpenApi } = await import("../compiler/backends/openapi/index.js");
    let built: ReturnType<typeof createDevApp>;
    try {
      built = createDevApp(service, {
        db,
        openapi: emitOpenApi(schema),
        hooks: loaded.hooks,
        hookData: loaded.hookData,
        ...(loaded.idempotencyScope ? { idempotencyScope: loaded.idempotencyScope } : {}),
        log: (l) => this.log(l),
        signal: this.stopping.signal,
        ...(loaded.webhooks ? { webhooks: loaded.webhooks } : {}),
        auth: this.auth,
      });
    } catch (e) {
      // The auth block's settings cannot verify tokens (an AuthConfigError naming the setting and variable).
      await db.close();
      await closeFront();
      this.fail([`${(e as Error).message}`]);
    }
    const { app, mounted, docs } = built;
    if (!mounted.ok) {
      await db.close();
      await closeFront();
      this.fail(mounted.errors.map((e) => e.message));
    }
    if (!docs.ok) {
      for (const c of docs.errors) this.warn(`the documentation is not served: ${c.message}`);
    }
    return app;
  }

  /** `--watch`: recompiles on each save and swaps the routes (decision 1241); returns what stops watching. */
  private async watch(
    file: string,
    db: Executor,
    loaded: HooksModule,
    use: (app: FetchApp) => void,
    flags: { "database-url"?: string; "data-dir": string; "accept-data-loss": boolean },
  ): Promise<() => void> {
    const { watchSchema } = await import("./dev/watch.js");
    return watchSchema({
      file,
      db,
      ...(flags["database-url"] ? {} : { dataDir: path.resolve(flags["data-dir"]) }),
      acceptDataLoss: flags["accept-data-loss"],
      app: {
        hooks: loaded.hooks,
        hookData: loaded.hookData,
        ...(loaded.idempotencyScope ? { idempotencyScope: loaded.idempotencyScope } : {}),
        log: (l) => this.log(l),
        signal: this.stopping.signal,
        auth: this.auth,
      },
      swap: use,
      log: (l) => this.log(l),
    });
  }

  /**
   * `--database-url`: a pool on a server that must already hold what the schema declares.
   * @throws Error saying the server cannot be reached, or listing what it lacks
   */
  private async openServer(url: string, schema: Schema, file: string): Promise<Executor> {
    const { createPgExecutor } = await import("../runtime/exec/pg.js");
    const { findSchemaMismatches } = await import("../catalog/index.js");
    const db = createPgExecutor({ connectionString: url });
    let mismatches: string[];
    try {
      mismatches = await findSchemaMismatches(db, schema);
    } catch (e) {
      await db.close();
      throw new Error(`cannot reach the database: ${(e as Error).message}`);
    }
    if (mismatches.length > 0) {
      await db.close();
      throw new Error(`the database does not match ${file}:\n  - ${mismatches.join("\n  - ")}`);
    }
    // Open the pool before saying "serving", so the first burst does not wait for connections (bench/first-seconds.md).
    await db.warmUp();
    return db;
  }

  /**
   * The embedded database: locked for this process, created from the schema or migrated to it
   * keeping its rows (decisions 0001, 1241, 1251).
   * @throws Error saying what is wrong with the data directory or the seed, and what to do
   */
  private async openEmbedded(schema: Schema, flags: DevFlags): Promise<Executor> {
    const { emitSql, schemaNamespaces } = await import("../compiler/backends/sql/index.js");
    const { EmbeddedDatabaseError, openEmbeddedDatabase } = await import("../runtime/exec/embedded.js");
    const { DataDirectoryLockedError } = await import("../runtime/exec/data-dir-lock.js");
    const { evolveEmbedded } = await import("./dev/evolve.js");
    const { declaredRenames } = await import("../catalog/index.js");
    let seed: string | undefined;
    if (flags.seed) {
      try {
        seed = await readFile(flags.seed, "utf8");
      } catch (e) {
        throw new Error(`cannot read the seed ${flags.seed}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
      }
    }
    try {
      const ddl = emitSql(schema);
      const emb = await openEmbeddedDatabase({
        dataDir: path.resolve(flags["data-dir"]),
        reset: flags.reset,
        ddl,
        seed,
        log: (l) => this.log(l),
        migrate: evolveEmbedded(
          ddl,
          declaredRenames(schema),
          flags["accept-data-loss"],
          (l) => this.log(l),
          schemaNamespaces(schema),
        ),
      });
      // A seed runs only where the database is made: say so, rather than leave the rows' absence to be puzzled over.
      if (seed !== undefined && !emb.fresh)
        this.log(
          `resc: the seed ${flags.seed} was not applied: the embedded database in ${flags["data-dir"]} already exists (--reset starts fresh)`,
        );
      return emb.executor;
    } catch (e) {
      if (e instanceof DataDirectoryLockedError) throw new Error(`${e.message} (--data-dir DIR)`);
      if (e instanceof EmbeddedDatabaseError) {
        throw new Error(/--reset/.test(e.message) ? e.message : `${e.message}\nrun again with --reset to recreate it`);
      }
      throw new Error(`cannot open the embedded database: ${(e as Error).message}`);
    }
  }
}

/** The flags {@link Dev.openEmbedded} reads. */
interface DevFlags {
  seed?: string;
  "data-dir": string;
  reset: boolean;
  "accept-data-loss": boolean;
}

/** Anything with a Hono app's `fetch`. */
type FetchApp = { fetch: (req: Request, env: unknown) => Response | Promise<Response> };

/** The bound port of `resc dev`, and what it answers with. */
interface Front {
  server: ReturnType<typeof import("@hono/node-server").serve>;
  port: number;
  /** Answers with `app` from now on. */
  use: (app: FetchApp) => void;
  /** Stops listening. */
  close: () => Promise<void>;
}

/** What answers while the database opens: `problem` (a 503 problem document's JSON) with Retry-After. */
function startingApp(problem: string): { fetch: (req: Request) => Response } {
  return {
    fetch: () =>
      new Response(problem, {
        status: 503,
        headers: { "content-type": "application/problem+json", "retry-after": "1" },
      }),
  };
}

/**
 * Binds 127.0.0.1:`port` with `fetch` as the handler.
 * @returns the server and the port bound (port 0 picks one), or the one-line reason it could not listen
 */
function listen(
  serve: typeof import("@hono/node-server").serve,
  fetch: (req: Request, env: unknown) => Response | Promise<Response>,
  port: number,
): Promise<{ server: ReturnType<typeof import("@hono/node-server").serve>; port: number } | { failure: string }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, hostname: "127.0.0.1", port }, (info) => resolve({ server, port: info.port }));
    // A port in use or not ours to take is a start-up failure: one line, exit 1, no stack.
    server.once("error", (e: NodeJS.ErrnoException) => resolve({ failure: listenFailure(e, port) }));
  });
}
