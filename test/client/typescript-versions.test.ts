/**
 * The generated typed client and command tree compile with the TypeScript a
 * user installs today, 7.x, and with 5.x (docs/clients.md). TypeScript 7
 * gives a file no Node globals it did not import (no ambient `process`), so
 * the tree imports what it uses from `node:process`; the client uses no
 * Node API at all. Both compilers run over the tree spec.resource
 * generates (typed client included), under strict NodeNext settings with
 * no `types` list, in a directory inside the repository so `@oclif/core`
 * and `@types/node` resolve as they would in a user's project.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitAll } from "../../compiler/generate.js";
import { compileFile } from "../support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const COMPILERS = [
  { name: "TypeScript 5", bin: path.join(ROOT, "node_modules/typescript/bin/tsc") },
  { name: "TypeScript 7", bin: path.join(ROOT, "node_modules/typescript-7/bin/tsc") },
];
mkdirSync(path.join(ROOT, "test/.generated-ts"), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, "test/.generated-ts/project-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tsc(bin: string): Promise<{ out: string; status: number; version: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, "--version"], (_e, version) => {
      execFile(
        process.execPath,
        [bin, "-p", path.join(dir, "tsconfig.json")],
        { cwd: dir },
        (error, stdout, stderr) => {
          resolve({
            out: stdout + stderr,
            status: error ? (typeof error.code === "number" ? error.code : 1) : 0,
            version: version.trim(),
          });
        },
      );
    });
  });
}

describe("generated client and command tree", async () => {
  const { schema } = await compileFile(path.join(ROOT, "spec.resource"));
  const files = (await emitAll(schema)).filter((f) => f.path.startsWith("cli/"));
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    writeFileSync(path.join(dir, f.path), f.contents);
  }
  writeFileSync(
    path.join(dir, "main.ts"),
    'import { buildCommandTree } from "./cli/commands/index.js";\nvoid buildCommandTree().execute();\n',
  );
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  writeFileSync(
    path.join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        skipLibCheck: true,
      },
      files: ["main.ts"],
    }),
  );

  it.each(COMPILERS)("compile with $name", async ({ name, bin }) => {
    const r = await tsc(bin);
    expect(r.version).toMatch(name === "TypeScript 7" ? /^Version 7\./ : /^Version 5\./);
    expect(r.out).toBe("");
    expect(r.status).toBe(0);
  });
});
