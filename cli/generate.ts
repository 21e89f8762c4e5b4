import path from "node:path";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";
import type { GeneratedFile } from "../compiler/generated-file.js";

/**
 * `resc generate FILE [--check]`: writes the files of every backend in
 * `BACKENDS` (the Hono module; the typed client and the command tree where
 * the `generate` block asks for them) under the block's `dir` (relative to
 * the schema file), and removes files there that carry resc's header but
 * are no longer generated; `--check` writes nothing and fails naming each
 * stale file of every backend and each file no longer generated
 * (docs/decisions/1053-orphaned-generated-files.md).
 */
export default class Generate extends RescCommand {
  static override description =
    "Generate the Hono module of a .resource file, and its typed client and command tree when the generate block names their directories.";
  static override examples = [
    "<%= config.bin %> generate spec.resource",
    "<%= config.bin %> generate --check spec.resource",
  ];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    check: Flags.boolean({
      description:
        "fail if any generated file is missing or differs from what the schema produces, or is no longer generated",
    }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
    const { BACKENDS, checkGenerated, emitAll, orphanedGenerated, removeOrphaned, writeGenerated } =
      await import("../compiler/generate.js");
    const { loadSchema } = await import("./load.js");
    const { args, flags } = await this.parse(Generate);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.fail(r.message);
    const root = path.resolve(path.dirname(args.file), r.schema.generate?.dir ?? "generated");
    let files: GeneratedFile[];
    try {
      files = await emitAll(r.schema, BACKENDS);
    } catch (e) {
      this.fail(e instanceof Error ? e.message : String(e));
    }
    const orphans = await orphanedGenerated(files, root);
    const shown = (p: string): string => path.relative(process.cwd(), path.join(root, p));
    if (flags.check) {
      const stale = await checkGenerated(files, root);
      for (const f of stale) process.stderr.write(`stale: ${shown(f)}\n`);
      for (const f of orphans) process.stderr.write(`stale: ${shown(f)} (no longer generated)\n`);
      const count = stale.length + orphans.length;
      if (count > 0) {
        this.fail(`${count} generated file${count === 1 ? " is" : "s are"} stale; run \`resc generate ${args.file}\``);
      }
      this.log(`${files.length} generated file${files.length === 1 ? "" : "s"} up to date`);
      return;
    }
    await writeGenerated(files, root);
    await removeOrphaned(orphans, root);
    for (const f of files) this.log(`wrote ${shown(f.path)}`);
    for (const f of orphans) this.log(`removed ${shown(f)} (no longer generated)`);
  }
}
