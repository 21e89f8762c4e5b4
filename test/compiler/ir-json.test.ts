/**
 * The IR survives JSON: `resc serve` keeps compiled schemas as JSON and
 * serves from them (cli/schema-cache.ts, decision 1326), so for every valid
 * schema the repository holds, the IR read back from JSON is the same value
 * and every backend's output from it is the same text.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildDescriptor, compileSource, emitHono, emitOpenApi, emitSql, type Schema } from "../../compiler/index.js";

const root = path.resolve(import.meta.dirname, "../..");
const files = execFileSync("git", ["ls-files", "*.resource"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.startsWith("fixtures/parse-errors/"));

describe("the IR through JSON", () => {
  const compiled = files
    .map((f) => ({ file: f, result: compileSource(readFileSync(path.join(root, f), "utf8"), f) }))
    .filter((c) => c.result.ok);

  it("covers the repository's schemas", () => {
    expect(compiled.length).toBeGreaterThan(10);
  });

  it.each(compiled.map((c) => [c.file, c.result] as const))("%s: same IR, same outputs", async (_file, result) => {
    const schema = result.schema;
    const back = JSON.parse(JSON.stringify(schema)) as Schema;
    expect(back).toEqual(schema);
    expect(JSON.stringify(emitOpenApi(back))).toBe(JSON.stringify(emitOpenApi(schema)));
    expect(emitSql(back)).toEqual(emitSql(schema));
    expect(JSON.stringify(buildDescriptor(back))).toBe(JSON.stringify(buildDescriptor(schema)));
    expect(await emitHono(back)).toEqual(await emitHono(schema));
  });
});
