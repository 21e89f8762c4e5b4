// Writes the text of the generated cores into modules the compiler imports
// (docs/decisions/1328-generated-cores.md). Each core is a real, type-checked
// module (compiler/backends/client/core/http.ts, compiler/backends/cli-tree/core/cli.ts);
// the generated client and command tree carry its text. An import of a
// dependency-free runtime module named in `inline` (the operator vocabulary)
// is replaced by that module's text, so the emitted client still imports
// nothing; the result is printed by prettier with its default options, the
// form every generated file has (decision 1321).
//
// Run by `npm run build`, `npm run typecheck` and vitest's global setup; the
// written modules are not committed (.gitignore).
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { format } from "prettier";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The cores: source module, generated module, exported constant, and modules inlined in place of their import. */
export const CORES = [
  {
    source: "compiler/backends/client/core/http.ts",
    output: "compiler/backends/client/core-text.ts",
    constant: "CLIENT_CORE",
    inline: ["runtime/operators.ts"],
  },
  {
    source: "compiler/backends/cli-tree/core/cli.ts",
    output: "compiler/backends/cli-tree/core-text.ts",
    constant: "TREE_CORE",
    inline: [],
  },
];

/** The import and re-export statements of `text` that name a module, with the path each names (resolved against `dir`). */
function references(text, dir) {
  const out = [];
  for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)";\n/gms)) {
    if (m[1].startsWith("."))
      out.push({ statement: m[0], target: path.posix.normalize(path.posix.join(dir, m[1].replace(/\.js$/, ".ts"))) });
  }
  return out;
}

/**
 * The emitted text of one core: its source with the first statement naming
 * each inlined module replaced by that module's text and the others (a
 * re-export of its types, say) removed, since the text exports them itself.
 */
export async function coreText(core) {
  let text = await readFile(path.join(root, core.source), "utf8");
  const dir = path.posix.dirname(core.source);
  for (const target of core.inline) {
    const found = references(text, dir).filter((i) => i.target === target);
    if (found.length === 0)
      throw new Error(`${core.source} no longer imports ${target}: remove it from the inlined modules`);
    const module = await readFile(path.join(root, target), "utf8");
    if (/^(?:import|export)\s[^;]*?from\s/ms.test(module))
      throw new Error(`${target} is inlined into ${core.source}, so it may import nothing`);
    text = text.replace(found[0].statement, `${module}\n`);
    for (const other of found.slice(1)) text = text.replace(other.statement, "");
  }
  return format(text, { parser: "typescript" });
}

/** Writes every core's module; unchanged files are left alone so watchers do not fire. */
export async function embedCores() {
  for (const core of CORES) {
    const text = await coreText(core);
    const contents = [
      `// Written by scripts/embed-cores.mjs from ${core.source}: do not edit, and do not commit.`,
      "",
      `/** The text of ${core.source} as every generated package carries it (docs/decisions/1328-generated-cores.md). */`,
      `export const ${core.constant}: string = ${JSON.stringify(text)};`,
      "",
    ].join("\n");
    const file = path.join(root, core.output);
    const before = await readFile(file, "utf8").catch(() => "");
    if (before !== contents) await writeFile(file, contents);
  }
}

/** Vitest's global setup: tests import the compiler from source, so the cores are embedded first. */
export const setup = embedCores;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await embedCores();
