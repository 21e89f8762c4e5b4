/**
 * `resc openapi FILE` as a user runs it: the built binary (`npm test`
 * builds `dist/` first). It prints the same document as the golden file.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/resc.js");
const tmp = mkdtempSync(path.join(tmpdir(), "resc-openapi-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function resc(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("resc openapi", () => {
  it("prints the OpenAPI document of the reference application", () => {
    const r = resc(["openapi", "spec.resource"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(path.join(ROOT, "fixtures/spec/expected/openapi.json"), "utf8"));
  });

  it("prints nothing on stdout and exits non-zero for a schema with errors", () => {
    const file = path.join(tmp, "broken.resource");
    writeFileSync(file, 'table t {\n  id integer @primary_key\n  resource "/t" { ops = [lists] }\n}\n');
    const r = resc(["openapi", file]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/broken\.resource:3/);
  });
});
