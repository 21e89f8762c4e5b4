/**
 * `resc fmt FILE… [--check]` (docs/decisions/1100-formatter-layout.md): rewrites files, lists the files
 * `--check` would change, refuses files that do not parse with code frames.
 * The command logic runs in-process; one run goes through the built binary
 * (`npm test` builds `dist/` first) to prove the command is registered.
 */
import { runNode } from "../support/run.js";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runFmt } from "../../cli/fmt.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const tmp = mkdtempSync(path.join(tmpdir(), "resc-fmt-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const UGLY = "table t {\n id   int @primary_key\n  longer_name text @sortable\n}";
const PRETTY = "table t {\n  id          int  @primary_key\n  longer_name text @sortable\n}\n";

async function run(files: string[], check = false, stdin = "") {
  let stdout = "";
  let stderr = "";
  const code = await runFmt(
    files,
    { check },
    {
      stdout: (s) => (stdout += s),
      stderr: (s) => (stderr += s),
      stdin: async () => stdin,
    },
  );
  return { code, stdout, stderr };
}

function file(name: string, text: string): string {
  const f = path.join(tmp, name);
  writeFileSync(f, text);
  return f;
}

describe("resc fmt", () => {
  it("rewrites a file into the canonical layout and names it", async () => {
    const f = file("a.resource", UGLY);
    const r = await run([f]);
    expect(r.code).toBe(0);
    expect(readFileSync(f, "utf8")).toBe(PRETTY);
    expect(r.stdout).toContain("formatted");
    expect(r.stdout).toContain("a.resource");
    const again = await run([f]);
    expect(again).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("--check writes nothing and exits 1 listing the files that would change", async () => {
    const ugly = file("b.resource", UGLY);
    const pretty = file("c.resource", PRETTY);
    const r = await run([ugly, pretty], true);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/would reformat .*b\.resource/);
    expect(r.stdout).not.toContain("c.resource");
    expect(r.stderr).toContain("1 file would be reformatted");
    expect(readFileSync(ugly, "utf8")).toBe(UGLY);
    expect((await run([pretty], true)).code).toBe(0);
  });

  it("refuses a file that does not parse: code frames, exit 1, file untouched", async () => {
    const broken = "table t {\n  id int @primary_key\n  name text @sortable(\n}\n";
    const f = file("broken.resource", broken);
    const ok = file("d.resource", UGLY);
    const r = await run([f, ok]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/error\[missing-paren\]/);
    expect(r.stderr).toMatch(/broken\.resource:\d+:\d+/);
    expect(r.stderr).toMatch(/\^/);
    expect(r.stderr).toContain("not formatted, it does not parse");
    expect(readFileSync(f, "utf8")).toBe(broken);
    expect(readFileSync(ok, "utf8")).toBe(PRETTY);
  });

  it("formats standard input to standard output for `-`", async () => {
    const r = await run(["-"], false, UGLY);
    expect(r).toEqual({ code: 0, stdout: PRETTY, stderr: "" });
  });

  it("names a file it cannot read", async () => {
    const r = await run([path.join(tmp, "missing.resource")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("cannot read");
  });

  it("is registered as a command of the built binary", async () => {
    const f = file("e.resource", UGLY);
    const r = await runNode([path.join(ROOT, "bin/resc.js"), "fmt", "--check", f]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain("would reformat");
  });
});
