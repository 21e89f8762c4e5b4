// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";

/** `resc sql FILE`: prints the DDL (CREATE TYPE / TABLE / INDEX in dependency order). */
export default class Sql extends RescCommand {
  static override description = "Print the SQL DDL that creates what a .resource file declares.";
  static override examples = ["<%= config.bin %> sql spec.resource > schema.sql"];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { emitSql } = await import("../compiler/backends/sql/index.js");
    const { loadSchema } = await import("./load.js");
    const { args } = await this.parse(Sql);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    process.stdout.write(emitSql(r.schema));
  }
}
