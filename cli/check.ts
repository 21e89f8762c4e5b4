import { Args, Command } from "@oclif/core";
import { loadSchema } from "./load.js";

/** `resc check FILE`: prints every diagnostic with a code frame; exits non-zero on errors (issue #2 §3). */
export default class Check extends Command {
  static override description = "Check a .resource file: syntax, the spec's rules and lint warnings, all at once.";
  static override examples = ["<%= config.bin %> check spec.resource"];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };

  async run(): Promise<void> {
    const { args } = await this.parse(Check);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.error(r.message, { exit: 1 });
    this.log(`${args.file}: ok${r.warnings ? ` (${r.warnings} warning${r.warnings === 1 ? "" : "s"})` : ""}`);
  }
}
