/**
 * `parse` reads a file declaration by declaration when it has no lexical or
 * syntax error (bench/COMPILER.md), and the whole file at once otherwise. The two
 * must agree: for every valid schema the repository holds, the synthetic
 * bench schema, and seeded rearrangements of them that stay free of syntax
 * errors but not of IR errors (declarations duplicated, reordered, an
 * attribute misspelt, a comment between declarations), both paths give the
 * same schema and the same diagnostics.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/parse.js";
import { syntheticSchema } from "../../bench/synthetic.js";
import { rng } from "../support/rng.js";

const root = path.resolve(import.meta.dirname, "../..");
const files = execFileSync("git", ["ls-files", "*.resource"], { cwd: root, encoding: "utf8" })
  .split("\n")
  .filter((f) => f && !f.startsWith("fixtures/parse-errors/"));

/** The text cut before each line that starts a top-level declaration. */
function declarations(text: string): string[] {
  return text.split(/\n(?=(?:table|enum|domain|api|auth|generate)\b)/);
}

/** A rearrangement that keeps the syntax valid: duplicate, move or misspell. */
function rearrange(text: string, random: () => number): string {
  const decls = declarations(text);
  const pick = (): number => Math.floor(random() * decls.length);
  switch (Math.floor(random() * 4)) {
    case 0:
      decls.splice(pick(), 0, decls[pick()]!);
      break;
    case 1: {
      const [moved] = decls.splice(pick(), 1);
      decls.splice(pick(), 0, moved!);
      break;
    }
    case 2:
      return text.replace(/@filterable/g, (m) => (random() < 0.2 ? "@filtrable" : m));
    default:
      decls.splice(pick(), 0, "// a comment between declarations\n");
  }
  return decls.join("\n");
}

function expectSamePaths(text: string, file: string): void {
  const quick = parse(text, file);
  const whole = parse(text, file, true);
  expect(quick.diagnostics).toEqual(whole.diagnostics);
  expect(quick.schema).toEqual(whole.schema);
}

describe("parse: declaration by declaration agrees with the whole-file parse", () => {
  it.each(files)("%s", (file) => {
    const text = readFileSync(path.join(root, file), "utf8");
    expectSamePaths(text, file);
    const random = rng(file.length);
    for (let i = 0; i < 20; i++) expectSamePaths(rearrange(text, random), file);
  });

  it("the synthetic schema of 30 tables, and rearrangements of it", () => {
    const text = syntheticSchema(30);
    expectSamePaths(text, "synthetic.resource");
    const random = rng(30);
    for (let i = 0; i < 40; i++) expectSamePaths(rearrange(text, random), "synthetic.resource");
  });

  it("rearrangements produce IR diagnostics, so both paths are compared on errors too", () => {
    const text = syntheticSchema(5);
    const doubled = declarations(text);
    doubled.push(doubled[1]!);
    const r = parse(doubled.join("\n"), "twice.resource");
    expect(r.diagnostics.map((d) => d.code)).toContain("duplicate-table");
  });
});
