/**
 * `resc openapi FILE` as a user runs it: the built binary (`npm test`
 * builds `dist/` first). It prints the same document as the golden file.
 */
import { runNode } from "../support/run.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const BIN = path.join(ROOT, "bin/resc.js");
const tmp = mkdtempSync(path.join(tmpdir(), "resc-openapi-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function resc(args: string[]) {
  return runNode([BIN, ...args], { cwd: ROOT });
}

describe("resc openapi", () => {
  it("prints the OpenAPI document of the reference application", async () => {
    const golden = readFileSync(path.join(ROOT, "fixtures/spec/expected/openapi.json"), "utf8");
    const r = await resc(["openapi", "spec.resource"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    // One line by default, as the service serves it; --pretty gives the reviewed golden form (decision 1320).
    expect(r.stdout).toBe(JSON.stringify(JSON.parse(golden)) + "\n");
    const pretty = await resc(["openapi", "--pretty", "spec.resource"]);
    expect(pretty.stdout).toBe(golden);
  });

  it("prints nothing on stdout and exits non-zero for a schema with errors", async () => {
    const file = path.join(tmp, "broken.resource");
    writeFileSync(file, 'table t {\n  id integer @primary_key\n  resource "/t" { ops = [lists] }\n}\n');
    const r = await resc(["openapi", file]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/broken\.resource:3/);
  });
});
