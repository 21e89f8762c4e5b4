/**
 * Generated code is printed in prettier's final form without running
 * prettier (docs/decisions/1321-generated-code-in-final-form.md):
 * prettier, run over every golden TypeScript file and over the module of a
 * synthetic 30-table schema, finds nothing to change.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { format } from "prettier";
import { describe, expect, it } from "vitest";
import { compileSource, emitClient, emitCommandTree, emitHono } from "../compiler/index.js";
import { syntheticSchema } from "../bench/synthetic.js";

const ROOT = path.resolve(import.meta.dirname, "..");

function goldenTypeScript(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...goldenTypeScript(full));
    else if (name.endsWith(".ts") && full.includes(`${path.sep}expected${path.sep}`)) out.push(full);
  }
  return out;
}

describe("generated code is already prettier-clean", () => {
  const files = goldenTypeScript(path.join(ROOT, "fixtures"));

  it("finds golden TypeScript files to check", () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it.each(files.map((f) => [path.relative(ROOT, f), f]))("%s", async (_, file) => {
    const text = readFileSync(file, "utf8");
    expect(await format(text, { parser: "typescript" })).toBe(text);
  });

  it("holds for every file of a synthetic 30-table schema", async () => {
    const r = compileSource(syntheticSchema(30), "synthetic.resource");
    if (!r.ok) throw new Error("the synthetic schema does not compile");
    const files = [
      ...(await emitHono(r.schema)),
      ...(await emitClient(r.schema, "client")),
      ...(await emitCommandTree(r.schema, "commands", { cliName: "syn", clientDir: "client" })),
    ];
    for (const f of files) expect(await format(f.contents, { parser: "typescript" }), f.path).toBe(f.contents);
  });
});
