import path from "node:path";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (issue #13).
import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { readFile } from "node:fs/promises";
import type { Executor } from "../runtime/exec/executor.js";
import type { HooksModule } from "./dev/hooks-module.js";
import { listenFailure } from "./listen-failure.js";

/**
 * `resc dev FILE`: compiles in memory and serves on 127.0.0.1 (issue #2 §6).
 * Embedded PGlite unless `--database-url` names a server, which must already
 * hold everything the schema declares. `--hooks MODULE` loads the hooks a
 * schema with `@@scoped` or `@soft_delete` tables needs; without them it
 * refuses to start, printing every registration error
 * (docs/decisions/0603-dev-hooks-module.md).
 */
export default class Dev extends Command {
  static override description = "Serve a .resource file over HTTP, on an embedded PostgreSQL or on --database-url.";
  static override examples = [
    "<%= config.bin %> dev spec.resource --seed examples/tracker/seed.sql --hooks dev-hooks.ts",
    "<%= config.bin %> dev fixtures/pagila/pagila.resource --database-url postgres://postgres@127.0.0.1/pagila",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    port: Flags.integer({ description: "TCP port on 127.0.0.1", default: 3000, min: 0, max: 65535 }),
    "database-url": Flags.string({
      description: "use this PostgreSQL (nothing is applied to it) instead of the embedded one",
    }),
    seed: Flags.string({ description: "SQL file run after the DDL when the embedded database is created" }),
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

  /** Writes `lines` to stderr unwrapped (oclif's `error` would rewrap long lines) and exits with status 1. */
  private fail(lines: string[]): never {
    process.stderr.write(`Error: ${lines.join("\n")}\n`);
    return this.exit(1);
  }

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (issue #13, decision 1323).
    const { serve } = await import("@hono/node-server");
    const { buildDescriptor } = await import("../compiler/descriptor.js");
    const { emitOpenApi } = await import("../compiler/backends/openapi/index.js");
    const { emitSql } = await import("../compiler/backends/sql/index.js");
    const { createPgExecutor } = await import("../runtime/exec/pg.js");
    const { loadSchema } = await import("./load.js");
    const { registrationErrors } = await import("../runtime/hooks/registration.js");
    const { createDevApp } = await import("./dev/app.js");
    const { loadHooksModule } = await import("./dev/hooks-module.js");
    const { EmbeddedDatabaseError, openEmbeddedDatabase } = await import("../runtime/exec/embedded.js");
    const { findSchemaMismatches } = await import("./dev/schema-check.js");
    const { evolveEmbedded } = await import("./dev/evolve.js");
    const { watchSchema } = await import("./dev/watch.js");
    const { declaredRenames } = await import("./migrate/compare.js");
    const { args, flags } = await this.parse(Dev);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.error(r.message, { exit: 1 });
    const service = buildDescriptor(r.schema);
    let loaded: HooksModule = { hooks: {} };
    if (flags.hooks) {
      try {
        loaded = await loadHooksModule(flags.hooks, service);
      } catch (e) {
        this.fail([(e as Error).message]);
      }
    }
    // Checked before any database is opened, so a missing hook fails fast.
    const missing = registrationErrors(service, loaded.hooks);
    if (missing.length > 0) {
      const n = missing.length;
      this.fail([
        `${args.file} cannot be served: ${n} registration error${n > 1 ? "s" : ""}`,
        ...missing.map((e) => `  - ${e.message}`),
        ...(flags.hooks ? [] : ["pass the hooks with --hooks MODULE"]),
      ]);
    }
    let db: Executor;
    if (flags["database-url"]) {
      const pgExec = createPgExecutor({ connectionString: flags["database-url"] });
      db = pgExec;
      let mismatches: string[];
      try {
        mismatches = await findSchemaMismatches(db, r.schema);
      } catch (e) {
        await db.close();
        this.error(`cannot reach the database: ${(e as Error).message}`, { exit: 1 });
      }
      if (mismatches.length > 0) {
        await db.close();
        this.error(`the database does not match ${args.file}:\n  - ${mismatches.join("\n  - ")}`, { exit: 1 });
      }
      // Open the pool before saying "serving", so the first burst does not wait for connections (bench/first-seconds.md).
      await pgExec.warmUp();
    } else {
      // The embedded database refuses a directory made from other DDL (decision 0001).
      let seed: string | undefined;
      if (flags.seed) {
        try {
          seed = await readFile(flags.seed, "utf8");
        } catch (e) {
          this.fail([`cannot read the seed ${flags.seed}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`]);
        }
      }
      try {
        const ddl = emitSql(r.schema);
        const emb = await openEmbeddedDatabase({
          dataDir: path.resolve(flags["data-dir"]),
          reset: flags.reset,
          ddl,
          seed,
          log: (l) => this.log(l),
          // A schema edited since the directory was made: migrate it, keeping the rows (issue #11 §4).
          migrate: evolveEmbedded(ddl, declaredRenames(r.schema), flags["accept-data-loss"], (l) => this.log(l)),
        });
        db = emb.executor;
      } catch (e) {
        if (e instanceof EmbeddedDatabaseError) {
          this.fail(/--reset/.test(e.message) ? [e.message] : [e.message, "run again with --reset to recreate it"]);
        }
        this.fail([`cannot open the embedded database: ${(e as Error).message}`]);
      }
    }
    const { app, mounted, docs } = createDevApp(service, {
      db,
      openapi: emitOpenApi(r.schema),
      hooks: loaded.hooks,
      hookData: loaded.hookData,
      log: (l) => this.log(l),
    });
    if (!mounted.ok) {
      await db.close();
      this.fail(mounted.errors.map((e) => e.message));
    }
    if (!docs.ok) {
      for (const c of docs.errors) this.warn(`the documentation is not served: ${c.message}`);
    }
    // The routes in use; --watch swaps them, requests in flight keep the app they started on.
    let current = app;
    const stopWatching = flags.watch
      ? watchSchema({
          file: args.file,
          db,
          ...(flags["database-url"] ? {} : { dataDir: path.resolve(flags["data-dir"]) }),
          acceptDataLoss: flags["accept-data-loss"],
          app: { hooks: loaded.hooks, hookData: loaded.hookData, log: (l) => this.log(l) },
          swap: (next) => {
            current = next;
          },
          log: (l) => this.log(l),
        })
      : () => {};
    const failure = await new Promise<string | undefined>((resolve) => {
      const server = serve(
        { fetch: (req, env) => current.fetch(req, env), hostname: "127.0.0.1", port: flags.port },
        (info) => {
          this.log(
            `resc: serving ${args.file} at http://127.0.0.1:${info.port}${flags.watch ? " (watching for changes)" : ""}`,
          );
        },
      );
      // A port in use or not ours to take is a start-up failure: one line, exit 1, no stack (issue #10 §4).
      server.once("error", (e: NodeJS.ErrnoException) => {
        stopWatching();
        void db.close().finally(() => resolve(listenFailure(e, flags.port)));
      });
      const stop = () => {
        stopWatching();
        server.close(() => {
          void db.close().finally(() => resolve(undefined));
        });
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    if (failure !== undefined) this.fail([failure]);
  }
}
