/**
 * The typed client depends on nothing (spec: Generator configuration, "The
 * typed client package depends only on the language standard library"):
 * the emitted package, copied alone into an empty directory with no
 * node_modules, compiles under the strictest options with only the ES2022
 * and DOM libraries and no ambient types. The compile-time contract of its
 * types (test/client/typing/usage.ts: what must and must not compile) is
 * checked the same way.
 */
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitClient } from "../../compiler/index.js";
import { compileFile } from "../support/service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TSC = path.join(ROOT, "node_modules/typescript/bin/tsc");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const STRICT = {
  strict: true,
  noEmit: true,
  target: "ES2022",
  module: "ES2022",
  moduleResolution: "Bundler",
  lib: ["ES2022", "DOM"],
  types: [],
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  noPropertyAccessFromIndexSignature: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
};

/**
 * Runs tsc in `dir` with `compilerOptions` over `files`; resolves its output and exit status.
 * Asynchronous, so the test worker keeps answering vitest while tsc runs.
 */
function tsc(dir: string, compilerOptions: object, files: string[]): Promise<{ out: string; status: number }> {
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, "-p", path.join(dir, "tsconfig.json")], { cwd: dir }, (error, stdout, stderr) => {
      resolve({ out: stdout + stderr, status: error ? (typeof error.code === "number" ? error.code : 1) : 0 });
    });
  });
}

describe.each(["spec.resource", "fixtures/pagila/pagila.resource"])("the client of %s", (schemaFile) => {
  it("imports nothing and compiles alone in an empty directory", async () => {
    const { schema } = await compileFile(path.join(ROOT, schemaFile));
    const files = await emitClient(schema, "client");
    expect(files.map((f) => f.path)).toEqual(["client/http.ts", "client/types.ts", "client/index.ts"]);
    for (const f of files) {
      const specifiers = [...f.contents.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]);
      expect(specifiers.filter((s) => !s.startsWith("./")), f.path).toEqual([]);
      expect(f.contents).not.toMatch(/\bprocess\b|\bBuffer\b|\brequire\(/);
    }
    const dir = mkdtempSync(path.join(tmpdir(), "resc-client-"));
    dirs.push(dir);
    for (const f of files) {
      mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
      writeFileSync(path.join(dir, f.path), f.contents);
    }
    expect(readdirSync(dir).sort()).toEqual(["client"]);
    const r = await tsc(dir, STRICT, files.map((f) => f.path));
    expect(r.out).toBe("");
    expect(r.status).toBe(0);
  });
});

describe("the client's types", () => {
  it("accept what the schema allows and refuse the rest (every @ts-expect-error is an error)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "resc-client-types-"));
    dirs.push(dir);
    cpSync(path.join(ROOT, "fixtures/spec/expected/client"), path.join(dir, "fixtures/spec/expected/client"), { recursive: true });
    cpSync(path.join(ROOT, "test/client/typing/usage.ts"), path.join(dir, "test/client/typing/usage.ts"));
    const r = await tsc(dir, { ...STRICT, noUnusedLocals: false }, ["test/client/typing/usage.ts"]);
    expect(r.out).toBe("");
    expect(r.status).toBe(0);
  });

  it("would catch a directive that stops being an error", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "resc-client-types-"));
    dirs.push(dir);
    cpSync(path.join(ROOT, "fixtures/spec/expected/client"), path.join(dir, "client"), { recursive: true });
    writeFileSync(
      path.join(dir, "probe.ts"),
      'import { Client } from "./client/index.js";\ndeclare const c: Client;\n// @ts-expect-error\nvoid c.tasks.list({ where: { title: "fine" } });\n',
    );
    const r = await tsc(dir, { ...STRICT, noUnusedLocals: false }, ["probe.ts"]);
    expect(r.out).toMatch(/TS2578: Unused '@ts-expect-error' directive/);
  });
});
