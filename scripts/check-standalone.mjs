#!/usr/bin/env node
// Fails when a tracked file refers to the reference shelf that sat beside the
// repository during development (the shelf one level up): a user's clone has nothing
// beside it, so every file the code, tests or docs need lives inside.
// Run by .ci/run and by test/repository/standalone.test.ts.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const self = path.relative(root, fileURLToPath(import.meta.url));
// Split so that this file does not match itself.
const pattern = new RegExp(["\\.\\./", "shared", "|\\bshared/(?:data|spec|design|hooks)\\b"].join(""));
const files = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
const hits = [];
for (const file of files) {
  if (file === self) continue;
  let text;
  try {
    text = readFileSync(path.join(root, file), "utf8");
  } catch {
    continue; // listed but deleted in the work tree
  }
  if (text.includes("\0")) continue; // binary
  text.split("\n").forEach((line, i) => {
    if (pattern.test(line)) hits.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
  });
}
if (hits.length > 0) {
  console.error(`${hits.length} line${hits.length > 1 ? "s" : ""} refer to files outside the repository:`);
  for (const h of hits) console.error(`  ${h}`);
  process.exit(1);
}
console.log(`standalone: ${files.length} tracked files, none refers outside the repository`);
