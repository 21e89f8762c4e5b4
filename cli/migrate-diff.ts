// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/**
 * `resc migrate diff FILE`: writes the next migration, from what the
 * committed migrations build to what the schema declares (docs/decisions/1240-migrations.md;
 * docs/decisions/1240-migrations.md). Destructive steps are refused unless
 * `--allow-data-loss`, and marked in the file either way.
 */
export default class MigrateDiff extends RescCommand {
  static override description = "Write the next migration: the schema compared with what migrations/ builds.";
  static override examples = ["<%= config.bin %> migrate diff schema.resource --name add_due_dates"];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    name: Flags.string({ description: "what the migration does, for its file name", default: "migration" }),
    dir: Flags.string({ description: "the migrations directory (default: migrations/ beside the schema)" }),
    "allow-data-loss": Flags.boolean({ description: "write steps that can lose data (drops, narrowing type changes)" }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { loadSchema } = await import("./load.js");
    const { migrationsDir, pendingSteps } = await import("./migrate/pending.js");
    const { migrationText, writeNextMigration } = await import("./migrate/files.js");
    const { args, flags } = await this.parse(MigrateDiff);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    const dir = migrationsDir(args.file, flags.dir);
    let result: Awaited<ReturnType<typeof pendingSteps>>;
    try {
      result = await pendingSteps(r.schema, dir);
    } catch (e) {
      this.fail((e as Error).message);
    }
    const { steps, migrations } = result;
    if (steps.length === 0) {
      this.log(`${args.file}: the migrations in ${dir} are up to date`);
      return;
    }
    const destructive = steps.filter((s) => s.destructive);
    if (destructive.length > 0 && !flags["allow-data-loss"]) {
      process.stderr.write(
        `Error: the next migration would lose data or fail on existing rows:\n${destructive.map((s) => `  - ${s.destructive}`).join("\n")}\n` +
          "write it anyway with --allow-data-loss (each such step is marked in the file), or change the schema\n",
      );
      return this.exit(1);
    }
    const file = await writeNextMigration(dir, migrations, flags.name, migrationText(args.file, steps));
    this.log(
      `wrote ${file} (${steps.length} step${steps.length === 1 ? "" : "s"}${destructive.length ? `, ${destructive.length} destructive` : ""})`,
    );
  }
}
