#!/usr/bin/env node
// `resc fmt --check` over every valid .resource file the repository tracks
// (docs/decisions/1100-formatter-layout.md): the reference schema, the examples and the fixtures that
// are meant to compile. Fixtures under fixtures/parse-errors/ and
// fixtures/validation/ are deliberately wrong and keep the layout their
// test needs. Run by .ci/run after the build; exits non-zero naming each
// file that is not in canonical form.
import { execFileSync, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const INVALID = ["fixtures/parse-errors/", "fixtures/validation/"];
const files = execFileSync("git", ["ls-files", "-z", "*.resource"], { cwd: root, encoding: "utf8" })
  .split("\0")
  .filter((f) => f && !INVALID.some((dir) => f.startsWith(dir)));
const r = spawnSync(process.execPath, [path.join(root, "bin/resc.js"), "fmt", "--check", ...files], {
  cwd: root,
  stdio: "inherit",
});
if (r.status === 0) console.log(`fmt --check: ${files.length} .resource files in canonical form`);
process.exit(r.status ?? 1);
