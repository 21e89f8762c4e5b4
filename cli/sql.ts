// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import * as Flags from "@oclif/core/flags";
import { RescCommand } from "./command.js";

/**
 * `resc sql FILE`: prints the DDL (CREATE TYPE / TABLE / INDEX in dependency order).
 * `--capture` prints only the change feed's capture, for a database whose tables were made without resc
 * (README, "Serving Pagila as it ships"; docs/decisions/1337-change-feed.md).
 */
export default class Sql extends RescCommand {
  static override description = "Print the SQL DDL that creates what a .resource file declares.";
  static override examples = [
    "<%= config.bin %> sql spec.resource > schema.sql",
    "<%= config.bin %> sql fixtures/pagila/pagila.resource --capture | psql -d pagila",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    capture: Flags.boolean({
      description:
        "print only the change feed's capture (the outbox, its function, a trigger per table with events = true), for tables that exist already",
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { emitCaptureSql, emitSql } = await import("../compiler/backends/sql/index.js");
    const { loadSchema } = await import("./load.js");
    const { args, flags } = await this.parse(Sql);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    if (!flags.capture) return void process.stdout.write(emitSql(r.schema));
    const capture = emitCaptureSql(r.schema);
    if (capture === "") this.fail(`${args.file} declares no resource with events = true: there is no capture to print`);
    process.stdout.write(capture);
  }
}
