import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
// Subpath imports: the package entry loads all of oclif (help, ux, …), 40 ms more at every start (docs/decisions/1322-command-start-up.md).
import * as Args from "@oclif/core/args";
import { RescCommand } from "./command.js";
import * as Flags from "@oclif/core/flags";

/** Where `runFmt` writes: messages for the user and the formatted text of `-` (standard input). */
export interface FmtIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Reads standard input (for the file name `-`). */
  stdin: () => Promise<string>;
}

/**
 * Formats `files` in place (docs/decisions/1100-formatter-layout.md), or with `check` only lists those
 * that would change. The file `-` reads standard input and writes the result
 * to standard output. A file that does not parse is left alone and its
 * diagnostics are printed with code frames. Returns the exit code: 0 when
 * every file is formatted (with `check`: already formatted), 1 otherwise.
 */
export async function runFmt(files: readonly string[], options: { check: boolean }, io: FmtIO): Promise<number> {
  // Loaded here, not at start-up: `resc` imports every command class to read its flags (decision 1323).
  const { formatDiagnostics } = await import("../grammar/index.js");
  const { formatSource } = await import("../grammar/format/index.js");
  let failed = 0;
  let changed = 0;
  for (const file of files) {
    const shown = file === "-" ? "<stdin>" : path.relative(process.cwd(), file) || file;
    let text: string;
    try {
      text = file === "-" ? await io.stdin() : await readFile(file, "utf8");
    } catch (e) {
      io.stderr(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}\n`);
      failed++;
      continue;
    }
    const r = formatSource(text, shown);
    if (!r.ok) {
      io.stderr(`${formatDiagnostics(r.diagnostics, text)}\n${shown}: not formatted, it does not parse\n`);
      failed++;
      continue;
    }
    if (file === "-") {
      if (!options.check) io.stdout(r.text);
      else if (r.changed) changed++;
      continue;
    }
    if (!r.changed) continue;
    changed++;
    if (options.check) io.stdout(`would reformat ${shown}\n`);
    else {
      await writeFile(file, r.text);
      io.stdout(`formatted ${shown}\n`);
    }
  }
  if (options.check && changed > 0) {
    io.stderr(`${changed} file${changed === 1 ? "" : "s"} would be reformatted; run \`resc fmt\`\n`);
    return 1;
  }
  return failed > 0 ? 1 : 0;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** `resc fmt FILE… [--check]`: the canonical layout of `.resource` files (docs/decisions/1100-formatter-layout.md). */
export default class Fmt extends RescCommand {
  static override description =
    "Format .resource files in place: aligned columns, comments kept, one canonical layout. `-` formats standard input to standard output.";
  static override examples = [
    "<%= config.bin %> fmt spec.resource",
    "<%= config.bin %> fmt --check schemas/*.resource",
    "<%= config.bin %> fmt - < spec.resource",
  ];
  static override strict = false;
  static override args = {
    file: Args.string({ description: "the .resource files (`-` for standard input)", required: true }),
  };
  static override flags = {
    check: Flags.boolean({ description: "write nothing; exit non-zero listing the files that are not formatted" }),
  };

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Fmt);
    const code = await runFmt(
      argv as string[],
      { check: flags.check },
      {
        stdout: (s) => process.stdout.write(s),
        stderr: (s) => process.stderr.write(s),
        stdin: readStdin,
      },
    );
    if (code !== 0) this.exit(code);
  }
}
