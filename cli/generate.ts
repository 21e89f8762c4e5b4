import path from "node:path";
import { Args, Command, Flags } from "@oclif/core";
import { emitHono } from "../compiler/index.js";
import { checkGenerated, writeGenerated } from "../compiler/generate.js";
import { loadSchema } from "./load.js";

/**
 * `resc generate FILE [--check]`: writes the generated modules under the
 * `generate` block's `dir` (relative to the schema file); `--check` writes
 * nothing and fails naming each stale file.
 */
export default class Generate extends Command {
  static override description = "Generate the Hono module (types, descriptors, mount function) of a .resource file.";
  static override examples = ["<%= config.bin %> generate spec.resource", "<%= config.bin %> generate --check spec.resource"];
  static override args = { file: Args.string({ description: "the .resource file", required: true }) };
  static override flags = {
    check: Flags.boolean({ description: "fail if any generated file is missing or differs from what the schema produces" }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(Generate);
    const r = await loadSchema(args.file, (s) => process.stderr.write(s));
    if (!r.ok) this.error(r.message, { exit: 1 });
    const root = path.resolve(path.dirname(args.file), r.schema.generate?.dir ?? "generated");
    const files = await emitHono(r.schema);
    if (flags.check) {
      const stale = await checkGenerated(files, root);
      if (stale.length > 0) {
        for (const f of stale) process.stderr.write(`stale: ${path.relative(process.cwd(), path.join(root, f))}\n`);
        this.error(`${stale.length} generated file${stale.length === 1 ? " is" : "s are"} stale; run \`resc generate ${args.file}\``, { exit: 1 });
      }
      this.log(`${files.length} generated file${files.length === 1 ? "" : "s"} up to date`);
      return;
    }
    await writeGenerated(files, root);
    for (const f of files) this.log(`wrote ${path.relative(process.cwd(), path.join(root, f.path))}`);
  }
}
