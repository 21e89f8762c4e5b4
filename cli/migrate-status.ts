// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (decision 1323).
import path from "node:path";
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import { databaseUrl, NO_DATABASE_URL } from "./database-url.js";

/**
 * `resc migrate status DATABASE_URL`: applied, pending (with each destructive
 * step they hold), edited and missing migrations; exits 1 on edited or missing
 * (docs/decisions/1240-migrations.md).
 */
export default class MigrateStatus extends RescCommand {
  static override description = "List the applied, pending and edited migrations of a database.";
  static override examples = ["<%= config.bin %> migrate status postgres://app@db/app"];
  static override args = { url: Args.string({ description: "the database (default: $DATABASE_URL)" }) };
  static override flags = {
    dir: Flags.string({ description: "the migrations directory (default: migrations/ here)", default: "migrations" }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { destructiveNotes, requireMigrations } = await import("./migrate/files.js");
    const { migrationStatus } = await import("./migrate/history.js");
    const { args, flags } = await this.parse(MigrateStatus);
    const url = databaseUrl(args.url);
    if (!url) this.fail(NO_DATABASE_URL);
    const dir = path.resolve(flags.dir);
    let s: Awaited<ReturnType<typeof migrationStatus>>;
    let files: Awaited<ReturnType<typeof requireMigrations>>;
    try {
      files = await requireMigrations(dir);
      s = await migrationStatus(url, files);
    } catch (e) {
      this.fail((e as Error).message);
    }
    this.log(`migrations in ${dir}:`);
    for (const a of s.applied)
      this.log(
        `applied  ${a.name}  ${a.appliedAt}${s.edited.includes(a.name) ? "  EDITED since" : ""}${s.missing.includes(a.name) ? "  MISSING from the directory" : ""}`,
      );
    for (const p of s.pending) {
      const notes = destructiveNotes(files.find((f) => f.name === p)!.sql);
      this.log(`pending  ${p}${notes.length > 0 ? `  (${notes.length} destructive)` : ""}`);
      for (const n of notes) this.log(`         DESTRUCTIVE: ${n}`);
    }
    if (s.edited.length > 0 || s.missing.length > 0) this.exit(1);
  }
}
