/**
 * The entry of the bundled `resc` command (decision 1325): oclif, the
 * command tree and everything the commands load lazily are bundled from
 * here into dist/bundle/main.js by scripts/bundle.mjs. bin/resc.js calls
 * {@link run}; oclif's explicit command strategy reads {@link commands}
 * back from the same file (package.json `oclif.commands`).
 */
import { execute } from "@oclif/core/execute";

export { commands } from "./commands.js";

/**
 * Runs `resc` with the process's arguments.
 *
 * @param dir the URL or path of the file that started the process
 *   (bin/resc.js): oclif finds the package root and its package.json from it
 */
export async function run(dir: string): Promise<void> {
  await execute({ dir });
}
