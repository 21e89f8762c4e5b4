// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/**
 * `resc check FILE`: prints every diagnostic with a code frame; exits
 * non-zero on errors (spec: Command-line compiler). With `--database-url`, also compares
 * the live database with the schema and exits non-zero naming each
 * difference, as the statement that would remove it: the drift gate for CI
 * (docs/decisions/1240-migrations.md).
 */
export default class Check extends RescCommand {
  static override description = "Check a .resource file: syntax, the spec's rules and lint warnings, all at once.";
  static override examples = [
    "<%= config.bin %> check spec.resource",
    "<%= config.bin %> check spec.resource --database-url postgres://app@db/app",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    "database-url": Flags.string({ description: "also fail when this database differs from the schema (drift)" }),
    "scratch-database-url": Flags.string({
      description:
        "a server where resc may create (and then drop) a scratch database to compare in, instead of the embedded one",
      dependsOn: ["database-url"],
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { loadSchema } = await import("./load.js");
    const { args, flags } = await this.parse(Check);
    // The drift gate's scratch database starts now, while the schema compiles and the live one is read
    // (docs/decisions/1260-scratch-database-snapshot.md).
    const scratchDatabase = flags["database-url"] !== undefined ? import("../catalog/index.js") : undefined;
    const scratch = scratchDatabase?.then((m) => m.startScratch(flags["scratch-database-url"]));
    scratch?.catch(() => {}); // awaited below; a start that fails is reported there
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) {
      await (await scratchDatabase)?.closeScratch(scratch);
      this.fail(r.message);
    }
    this.log(`${args.file}: ok${r.warnings ? ` (${r.warnings} warning${r.warnings === 1 ? "" : "s"})` : ""}`);
    const url = flags["database-url"];
    if (url === undefined) return;
    // Loaded only here: a plain check needs neither pg nor the scratch database (decision 1323).
    const { createPgExecutor } = await import("../runtime/exec/pg.js");
    const { driftSteps } = await import("../catalog/index.js");
    const db = createPgExecutor({ connectionString: url, max: 1 });
    let steps: Awaited<ReturnType<typeof driftSteps>>;
    try {
      steps = await driftSteps(db, r.schema, scratch);
    } catch (e) {
      this.fail(`cannot read the database: ${(e as Error).message}`);
    } finally {
      await db.close();
      await (await scratchDatabase)?.closeScratch(scratch);
    }
    if (steps.length === 0) {
      this.log("the database matches the schema");
      return;
    }
    process.stderr.write(
      `Error: the database differs from ${args.file} in ${steps.length} way${steps.length === 1 ? "" : "s"}; these statements would make it match:\n` +
        steps
          .map((s) => `  ${s.sql.replace(/\n/g, "\n  ")}${s.destructive ? `   -- ${s.destructive}` : ""}`)
          .join("\n") +
        "\n",
    );
    this.exit(1);
  }
}
