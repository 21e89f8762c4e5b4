/**
 * The base of every `resc` command: oclif's Command with one way to fail.
 * oclif's own `this.error` prints ` ›   Error: …` and rewraps long lines,
 * while other failures printed `Error: …` as is; every command now says
 * `Error: <message>` on stderr, its lines kept as written, and exits
 * non-zero.
 */
// Subpath import: the package entry loads all of oclif (help, ux, …) at every start (decision 1323).
import { Command } from "@oclif/core/command";

/** A `resc` command. */
export abstract class RescCommand extends Command {
  /**
   * Writes `Error: ` and `message` (lines as given, never rewrapped) to stderr and exits.
   * @param exit the exit status (default 1)
   */
  protected fail(message: string | readonly string[], exit = 1): never {
    const text = typeof message === "string" ? message : message.join("\n");
    process.stderr.write(`Error: ${text}\n`);
    return this.exit(exit);
  }
}
