// Subpath imports: the package entry loads all of oclif (help, ux, …) at every start (decision 1323).
import path from "node:path";
import * as Args from "@oclif/core/args";
import * as Flags from "@oclif/core/flags";
import { RescCommand } from "./command.js";
import { databaseUrl, NO_DATABASE_URL_FLAG } from "./database-url.js";

/**
 * `resc migrate baseline FILE --database-url URL`: adopts an existing
 * database into migrations (docs/lifecycle.md, "Adopt"). When the database
 * matches the schema (the drift gate passes), writes the first migration,
 * `0001_baseline.sql`, as `migrate diff` would, and records it as applied
 * there without running it: later migrations deploy on top, and a fresh
 * database built from the migrations is the same.
 */
export default class MigrateBaseline extends RescCommand {
  static override description =
    "Adopt an existing database: write the first migration from the schema and record it as applied there.";
  static override examples = [
    "<%= config.bin %> migrate baseline schema.resource --database-url postgres://app@db/app",
  ];
  static override args = { file: Args.string({ description: "the .resource file (from resc pull)", required: true }) };
  static override flags = {
    "database-url": Flags.string({ description: "the database to baseline (default: $DATABASE_URL)" }),
    dir: Flags.string({ description: "the migrations directory (default: migrations/ beside the schema)" }),
    name: Flags.string({ description: "the migration's name", default: "baseline" }),
    "scratch-database-url": Flags.string({
      description:
        "a server where resc may create (and then drop) a scratch database to compare in, instead of the embedded one",
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { loadSchema } = await import("./load.js");
    const { migrationsDir } = await import("./migrate/pending.js");
    const { emitSql, schemaNamespaces } = await import("../compiler/backends/sql/index.js");
    const {
      diffCatalogs,
      expressibleCatalog,
      readCatalog,
      readPrelude,
      scratchStates,
      withoutComments,
      withoutHistory,
    } = await import("../catalog/index.js");
    type Catalog = Awaited<ReturnType<typeof readCatalog>>;
    const { migrationText, readMigrations, writeNextMigration, checksum } = await import("./migrate/files.js");
    const { recordBaseline } = await import("./migrate/history.js");
    const { createPgExecutor } = await import("../runtime/exec/pg.js");
    const { args, flags } = await this.parse(MigrateBaseline);
    const url = databaseUrl(flags["database-url"]);
    if (!url) this.fail(NO_DATABASE_URL_FLAG);
    // The scratch database starts first: its start is most of a baseline's time, and overlaps loading the
    // schema and reading the live database (docs/decisions/1260-scratch-database-snapshot.md).
    const { startScratch, closeScratch } = await import("../catalog/index.js");
    const scratch = startScratch(flags["scratch-database-url"]);
    let read: [Catalog, string[]];
    let states: Awaited<ReturnType<typeof scratchStates>>;
    let r: Awaited<ReturnType<typeof loadSchema>>;
    let dir: string;
    try {
      r = await loadSchema(args.file, (s) => process.stderr.write(s));
      if (!r.ok) this.fail(r.message);
      dir = path.resolve(migrationsDir(args.file, flags.dir));
      if ((await readMigrations(dir)).length > 0)
        this.fail(`${dir} already holds migrations; a baseline is the first one`);
      // One scratch database gives both what the first migration builds from nothing and what to compare the
      // live database with (a second would double the time).
      const db = createPgExecutor({ connectionString: url, max: 2 });
      const schemas = schemaNamespaces(r.schema);
      try {
        read = await Promise.all([readCatalog(db, schemas), readPrelude(db)]);
      } catch (e) {
        this.fail(`cannot read the database: ${(e as Error).message}`);
      } finally {
        await db.close();
      }
      states = await scratchStates([], emitSql(r.schema), { schemas, prelude: read[1], database: scratch });
    } finally {
      // Closed here whatever happened above: a scratch database on a server is dropped.
      await closeScratch(scratch);
    }
    const [catalog, prelude] = read;
    const schemas = schemaNamespaces(r.schema);
    const live = expressibleCatalog(withoutHistory(catalog), schemas);
    const drift = diffCatalogs(withoutComments(live), withoutComments(withoutHistory(states.desired)));
    if (drift.length > 0) {
      this.fail([
        `the database differs from ${args.file} in ${drift.length} way${drift.length === 1 ? "" : "s"}; a baseline would record a state it is not in:`,
        ...drift.map((s) => `  ${s.sql}`),
        "pull it again (resc pull) or change the schema until resc check --database-url passes",
      ]);
    }
    // The database's own extensions and functions first: a default or check of the schema may call them.
    const steps = [
      ...prelude.map((sql) => ({ sql })),
      ...diffCatalogs(withoutHistory(states.current), withoutHistory(states.desired)),
    ];
    const text = migrationText(path.basename(args.file), steps);
    const file = await writeNextMigration(dir, [], flags.name, text);
    try {
      await recordBaseline(url, { name: path.basename(file), sql: text, checksum: checksum(text) });
    } catch (e) {
      this.fail(`wrote ${file}, but could not record it: ${(e as Error).message}`);
    }
    this.log(`wrote ${file} (${steps.length} steps) and recorded it as applied; later migrations deploy on top of it`);
  }
}
