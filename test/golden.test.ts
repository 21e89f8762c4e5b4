/**
 * Golden files: for every `*.resource` under `fixtures/` (and the root
 * `spec.resource`, whose goldens live in `fixtures/spec/expected/`), the
 * compiler's output is compared byte for byte with the files in
 * `expected/` next to the input:
 *
 * - `diagnostics.txt`: every diagnostic as a code frame (paths relative to
 *   the repository), then the summary line;
 * - when there is no error, `schema.sql` (the DDL), `hono/<path>` (the
 *   generated Hono module) and `openapi.json` (`resc openapi`);
 * - when the schema serves a resource, `client/<file>` (the typed client)
 *   and `commands/<file>` (the command tree), whatever its `generate`
 *   block says.
 *
 * `UPDATE_GOLDEN=1` (npm run test:update-golden) rewrites the expected
 * files instead, removing ones that are no longer produced. Without it, a
 * missing, extra or different file fails.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  clientLayout,
  compileSource,
  emitClient,
  emitCommandTree,
  emitHono,
  emitOpenApi,
  emitSql,
  printOpenApi,
} from "../compiler/index.js";
import { formatDiagnostics } from "../grammar/index.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const UPDATE = process.env.UPDATE_GOLDEN === "1";

/**
 * Every schema file under `dir`, repository-relative with `/`, skipping
 * `expected/` folders and `fixtures/migrate/` (before/after pairs whose
 * golden is the migration between them: test/migrate/pairs.test.ts).
 */
function findSchemas(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory() && entry.name !== "expected" && rel !== "fixtures/migrate") out.push(...findSchemas(rel));
    else if (entry.isFile() && entry.name.endsWith(".resource")) out.push(rel);
  }
  return out.sort();
}

/** Files under `dir` (absolute), relative to it with `/`. */
function listFiles(dir: string, prefix = ""): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? listFiles(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** What the compiler produces for one schema file, by path under `expected/`. */
async function produce(file: string): Promise<Map<string, string>> {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const result = compileSource(text, file);
  const out = new Map<string, string>();
  out.set("diagnostics.txt", formatDiagnostics(result.diagnostics, text) + "\n");
  if (result.ok) {
    out.set("schema.sql", emitSql(result.schema));
    for (const f of await emitHono(result.schema)) out.set(`hono/${f.path}`, f.contents);
    out.set("openapi.json", printOpenApi(emitOpenApi(result.schema), { pretty: true }));
    for (const f of await emitClient(result.schema, "client")) out.set(f.path, f.contents);
    const cliName = clientLayout(result.schema).cliName;
    for (const f of await emitCommandTree(result.schema, "commands", { cliName, clientDir: "client" }))
      out.set(f.path, f.contents);
  }
  return out;
}

const schemas = ["spec.resource", ...findSchemas("fixtures")];

describe("golden files", () => {
  it("has at most one schema per fixture directory (they share expected/)", () => {
    const dirs = schemas.map((s) => path.dirname(s));
    expect(dirs.filter((d, i) => dirs.indexOf(d) !== i)).toEqual([]);
  });

  it.each(schemas)("%s", async (file) => {
    const expectedDir = path.join(ROOT, file === "spec.resource" ? "fixtures/spec" : path.dirname(file), "expected");
    const produced = await produce(file);
    if (UPDATE) {
      rmSync(expectedDir, { recursive: true, force: true });
      for (const [rel, contents] of produced) {
        mkdirSync(path.dirname(path.join(expectedDir, rel)), { recursive: true });
        writeFileSync(path.join(expectedDir, rel), contents);
      }
    }
    expect(listFiles(expectedDir).sort(), "files in expected/").toEqual([...produced.keys()].sort());
    for (const [rel, contents] of produced) {
      expect(readFileSync(path.join(expectedDir, rel), "utf8"), rel).toBe(contents);
    }
  });
});
