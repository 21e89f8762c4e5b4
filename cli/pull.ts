import { writeFile } from "node:fs/promises";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (decision 1323).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import { databaseUrl, NO_DATABASE_URL } from "./database-url.js";

/**
 * `resc pull DATABASE_URL`: describes an existing database as a canonical
 * `.resource` file, read-only exposure, secrets hidden (docs/lifecycle.md, Adopt;
 * docs/decisions/1200-pull.md). What cannot be described is left out with a
 * comment and listed on stderr.
 */
export default class Pull extends RescCommand {
  static override description = "Describe an existing PostgreSQL database as a .resource file.";
  static override examples = [
    "<%= config.bin %> pull postgres://postgres@127.0.0.1/pagila --out pagila.resource",
    "<%= config.bin %> pull postgres://app@db/app --schema public,billing --out app.resource",
    "<%= config.bin %> pull postgres://app@db/adventureworks --all-schemas --out adventureworks.resource",
  ];
  static override args = { url: Args.string({ description: "the database (default: $DATABASE_URL)" }) };
  static override flags = {
    schema: Flags.string({
      description:
        "a PostgreSQL schema (namespace) to describe; repeat it or separate by commas for several (default: public)",
      multiple: true,
      exclusive: ["all-schemas"],
    }),
    "all-schemas": Flags.boolean({
      description: "describe every schema that holds a table, a view, an enum or a domain",
      default: false,
    }),
    out: Flags.string({ description: "write the file here instead of stdout" }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { formatDiagnostics } = await import("../grammar/index.js");
    const { introspect } = await import("../catalog/index.js");
    const { pulledFile } = await import("./pull/pull-file.js");
    const { args, flags } = await this.parse(Pull);
    const url = databaseUrl(args.url);
    if (!url) this.fail(NO_DATABASE_URL);
    let read: Awaited<ReturnType<typeof introspect>>;
    try {
      const schemas = (flags.schema ?? ["public"]).flatMap((s) => s.split(",")).map((s) => s.trim());
      read = await introspect(url, flags["all-schemas"] ? "all" : schemas.filter((s) => s !== ""));
    } catch (e) {
      this.fail(`cannot read the database: ${(e as Error).message}`);
    }
    const pulled = pulledFile(read.catalog, read.extras, flags.out ?? "pulled.resource");
    if (!pulled.ok) {
      // A bug of pull, not of the database: show what was produced so it can be reported; nothing is written.
      this.fail(
        `the pulled text does not compile (please report this):\n${formatDiagnostics(pulled.diagnostics, pulled.text)}`,
        2,
      );
    }
    for (const l of pulled.leftOut) process.stderr.write(`left out: ${l}\n`);
    for (const w of pulled.warnings) process.stderr.write(`warning: ${w}\n`);
    const formatted = pulled;
    if (flags.out) {
      await writeFile(flags.out, formatted.text);
      process.stderr.write(`wrote ${flags.out} (${read.catalog.tables.length} tables)\n`);
    } else {
      process.stdout.write(formatted.text);
    }
  }
}
