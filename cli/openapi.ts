// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/**
 * `resc openapi FILE`: prints the OpenAPI 3.1 description of the service a
 * schema declares, as deterministic JSON (docs/decisions/1000-openapi-description.md), the same document
 * the service serves at /openapi.json; one line unless `--pretty`
 * (decision 1320).
 */
export default class OpenApi extends RescCommand {
  static override description = "Print the OpenAPI 3.1 description (JSON) of the service a .resource file declares.";
  static override examples = [
    "<%= config.bin %> openapi spec.resource > openapi.json",
    "<%= config.bin %> openapi --pretty spec.resource",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    pretty: Flags.boolean({
      description: "indent the JSON by two spaces (default: one line, as the service serves it)",
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { emitOpenApi, printOpenApi } = await import("../compiler/backends/openapi/index.js");
    const { loadSchema } = await import("./load.js");
    const { args, flags } = await this.parse(OpenApi);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    process.stdout.write(printOpenApi(emitOpenApi(r.schema), { pretty: flags.pretty }));
  }
}
