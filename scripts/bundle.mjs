// Bundles the `resc` command into dist/bundle/ after `tsc` (decision 1325):
// one file per command's lazy part instead of some five hundred modules, so
// a command starts 50-90 ms sooner (bench/COMPILER.md). Input: the compiled dist/
// (not the TypeScript sources, which tsc has already checked). The metafile
// (dist/bundle/meta.json) says which modules each output file holds; the
// start-up test reads it to tell what a command loaded.
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist/bundle");

// Packages that locate files beside their own modules (PGlite's WebAssembly, pino's workers,
// prettier's plugins, tsx's loader hooks) or that are optional native code stay in node_modules.
const external = ["@electric-sql/pglite", "pg-native", "pino", "prettier", "tsx", "typescript"];

await rm(outdir, { recursive: true, force: true });

// The build id keys resc serve's compiled-schema cache (cli/schema-cache.ts, decision 1326): a hash of every
// compiled module and of the dependency tree, so a cache written by other code is never read.
const hash = createHash("sha256");
for (const entry of (await readdir(path.join(root, "dist"), { recursive: true, withFileTypes: true })).sort((a, b) =>
  path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name)),
)) {
  if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
  const file = path.join(entry.parentPath, entry.name);
  hash
    .update(path.relative(root, file))
    .update("\0")
    .update(await readFile(file))
    .update("\0");
}
hash.update(await readFile(path.join(root, "package-lock.json")).catch(() => Buffer.alloc(0)));
const buildId = hash.digest("hex").slice(0, 32);
const result = await build({
  absWorkingDir: root,
  entryPoints: { main: "dist/cli/main.js" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  define: { RESC_BUILD_ID: JSON.stringify(buildId) },
  // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
  banner: {
    js: [
      'import { createRequire as __rescCreateRequire } from "node:module";',
      'import { fileURLToPath as __rescFileURLToPath } from "node:url";',
      "const require = __rescCreateRequire(import.meta.url);",
      "const __filename = __rescFileURLToPath(import.meta.url);",
      'const __dirname = __rescFileURLToPath(new URL(".", import.meta.url));',
    ].join("\n"),
  },
  chunkNames: "[name]-[hash]",
  legalComments: "linked",
  metafile: true,
  logLevel: "warning",
});
await writeFile(path.join(outdir, "meta.json"), JSON.stringify(result.metafile));
