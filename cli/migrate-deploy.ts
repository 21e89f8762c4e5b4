// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (decision 1323).
import path from "node:path";
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import { databaseUrl, NO_DATABASE_URL } from "./database-url.js";

/**
 * `resc migrate deploy DATABASE_URL`: applies the pending migrations in
 * order, each in its own transaction, under an advisory lock; refuses when
 * an applied migration was edited (docs/decisions/1240-migrations.md). It
 * says what it is about to apply first, each destructive step by name, then
 * each migration as it is applied.
 */
export default class MigrateDeploy extends RescCommand {
  static override description = "Apply the pending migrations of a migrations directory to a database.";
  static override examples = ["<%= config.bin %> migrate deploy postgres://app@db/app --dir migrations"];
  static override args = { url: Args.string({ description: "the database (default: $DATABASE_URL)" }) };
  static override flags = {
    dir: Flags.string({ description: "the migrations directory (default: migrations/ here)", default: "migrations" }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { destructiveNotes, requireMigrations } = await import("./migrate/files.js");
    const { deployMigrations, migrationStatus } = await import("./migrate/history.js");
    const { args, flags } = await this.parse(MigrateDeploy);
    const url = databaseUrl(args.url);
    if (!url) this.fail(NO_DATABASE_URL);
    const dir = path.resolve(flags.dir);
    try {
      const files = await requireMigrations(dir);
      const { pending } = await migrationStatus(url, files);
      if (pending.length > 0) this.log(`${pending.length} pending in ${dir}:`);
      for (const name of pending) {
        const notes = destructiveNotes(files.find((f) => f.name === name)!.sql);
        this.log(`  ${name}${notes.length > 0 ? `  (${notes.length} destructive)` : ""}`);
        for (const n of notes) this.log(`    DESTRUCTIVE: ${n}`);
      }
      const applied = await deployMigrations(url, files, (l) => this.log(l));
      this.log(
        applied.length === 0
          ? `the database is up to date with ${dir}`
          : `applied ${applied.length} migration${applied.length === 1 ? "" : "s"} from ${dir}`,
      );
    } catch (e) {
      this.fail((e as Error).message);
    }
  }
}
