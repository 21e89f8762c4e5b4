import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (issue #13).
import * as Args from "@oclif/core/args";
import { Command } from "@oclif/core/command";
import * as Flags from "@oclif/core/flags";

/**
 * `resc init [DIR]`: a new project that runs with `npm install && npm start`
 * and passes `npm test` (issue #11 §1; docs/decisions/1242-init.md): an
 * example schema with a `generate` block, `server.ts` and `app.ts` mounting
 * the generated module, `hooks.ts`, the first migration, a smoke test and a
 * README. Refuses a non-empty directory unless `--force`.
 */
export default class Init extends Command {
  static override description = "Start a new resc project in DIR (default: the current directory).";
  static override examples = ["<%= config.bin %> init notes && cd notes && npm install && npm start"];
  static override args = { dir: Args.string({ description: "the project directory", default: "." }) };
  static override flags = {
    force: Flags.boolean({
      description: "write into a directory that is not empty (existing files are kept unless overwritten)",
    }),
    name: Flags.string({ description: "the package name (default: the directory's name)" }),
  };

  async run(): Promise<void> {
    // Loaded here, not at start-up: `resc` imports every command class to read its flags (issue #13, decision 1323).
    const { compileSource } = await import("../compiler/compile.js");
    const { migrationText } = await import("./migrate/files.js");
    const { pendingSteps } = await import("./migrate/compare.js");
    const t = await import("./init/templates.js");
    const { args, flags } = await this.parse(Init);
    const dir = path.resolve(args.dir);
    const existing = await readdir(dir).catch(() => [] as string[]);
    if (existing.length > 0 && !flags.force) {
      this.error(
        `${dir} is not empty (${existing.slice(0, 3).join(", ")}${existing.length > 3 ? ", …" : ""}); choose an empty directory or pass --force`,
        { exit: 1 },
      );
    }
    const name =
      (flags.name ?? path.basename(dir))
        .toLowerCase()
        .replace(/[^a-z0-9-]+/g, "-")
        .replace(/^-+|-+$/g, "") || "api";
    const pkg = JSON.parse(await readFile(fileURLToPath(new URL("../../package.json", import.meta.url)), "utf8")) as {
      version: string;
    };
    const compiled = compileSource(t.SCHEMA, "schema.resource");
    if (!compiled.ok) this.error("the example schema does not compile (a bug of resc init)", { exit: 2 });
    const first = await pendingSteps(compiled.schema, path.join(dir, "migrations"));
    const files: [string, string][] = [
      ["package.json", t.packageJson(name, pkg.version)],
      ["schema.resource", t.SCHEMA],
      ["app.ts", t.APP],
      ["server.ts", t.SERVER],
      ["hooks.ts", t.HOOKS],
      ["test/smoke.test.ts", t.SMOKE_TEST],
      ["migrations/0001_init.sql", migrationText("schema.resource", first.steps)],
      ["README.md", t.README(name)],
      [".gitignore", t.GITIGNORE],
      ["tsconfig.json", t.TSCONFIG],
    ];
    for (const [file, text] of files) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), text);
    }
    const cd = path.relative(process.cwd(), dir);
    this.log(
      `wrote ${files.length} files in ${dir}\nnext:\n${cd ? `  cd ${cd}\n` : ""}  npm install\n  npm start    # http://127.0.0.1:3000/notes\n  npm test`,
    );
  }
}
