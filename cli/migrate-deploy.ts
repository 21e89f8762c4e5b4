// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (issue #13).
import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";
import { databaseUrl, NO_DATABASE_URL } from "./database-url.js";

/**
 * `resc migrate deploy DATABASE_URL`: applies the pending migrations in
 * order, each in its own transaction, under an advisory lock; refuses when
 * an applied migration was edited (issue #11 §3; docs/decisions/1240-migrations.md).
 */
export default class MigrateDeploy extends Command {
  static override description = "Apply the pending migrations of migrations/ to a database.";
  static override examples = ["<%= config.bin %> migrate deploy postgres://app@db/app --dir migrations"];
  static override args = { url: Args.string({ description: "the database (default: $DATABASE_URL)" }) };
  static override flags = { dir: Flags.string({ description: "the migrations directory", default: "migrations" }) };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (issue #13, decision 1323).
    const { readMigrations } = await import("./migrate/files.js");
    const { deployMigrations } = await import("./migrate/history.js");
    const { args, flags } = await this.parse(MigrateDeploy);
    const url = databaseUrl(args.url);
    if (!url) this.error(NO_DATABASE_URL, { exit: 1 });
    const files = await readMigrations(flags.dir);
    try {
      const applied = await deployMigrations(url, files, (l) => this.log(l));
      this.log(
        applied.length === 0
          ? "the database is up to date"
          : `applied ${applied.length} migration${applied.length === 1 ? "" : "s"}`,
      );
    } catch (e) {
      this.error((e as Error).message, { exit: 1 });
    }
  }
}
