/**
 * What a `resc` process loaded, from the file test/support/trace-loads.mjs
 * writes (one resolved URL per line). The command is bundled (decision
 * 1325), so a file of dist/bundle/ stands for the modules esbuild put in
 * it, as its metafile (dist/bundle/meta.json) lists them.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "../..");

/** esbuild's metafile: each output file of dist/bundle/ with the modules (paths from the root) it holds. */
interface Metafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/**
 * The packages (`pg`, `@oclif/core`) and our own compiled modules
 * (`dist/compiler/validate/index.js`) behind the URLs in `traceFile`.
 * Reads dist/bundle/meta.json at each call: a build between calls is seen.
 */
export function loadedModules(traceFile: string): { packages: Set<string>; own: Set<string> } {
  const bundle = JSON.parse(readFileSync(path.join(root, "dist/bundle/meta.json"), "utf8")) as Metafile;
  const packages = new Set<string>();
  const own = new Set<string>();
  const add = (p: string): void => {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
    if (m) packages.add(m[1]!);
    else if (p.startsWith("dist/") && !p.startsWith("dist/bundle/")) own.add(p);
  };
  for (const url of readFileSync(traceFile, "utf8").split("\n")) {
    if (!url.startsWith(`file://${root}/`)) continue;
    const p = url.slice(`file://${root}/`.length);
    const output = bundle.outputs[p];
    if (output) for (const input of Object.keys(output.inputs)) add(input);
    else add(p);
  }
  return { packages, own };
}

/** Node arguments that make a process record what it resolves into `traceFile` (set RESC_TRACE_LOADS to it too). */
export const TRACE_LOADS_IMPORT = ["--import", path.join(root, "test/support/trace-loads.mjs")];
