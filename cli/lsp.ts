// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/** `resc lsp --stdio`: the language server for editors (docs/editor.md). */
export default class Lsp extends RescCommand {
  static override description =
    "Run the .resource language server over standard input and output (diagnostics, hover, completion, definitions, symbols, formatting).";
  static override examples = ["<%= config.bin %> lsp --stdio"];
  static override flags = {
    stdio: Flags.boolean({
      description: "talk LSP over standard input and output (the only transport)",
      default: true,
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { startStdioServer } = await import("./lsp/main.js");
    await this.parse(Lsp);
    startStdioServer();
    // The connection keeps the process alive; the client ends it with `exit`.
    await new Promise<never>(() => {});
  }
}
