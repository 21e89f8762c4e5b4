/**
 * The language server compiles each version of a document incrementally,
 * re-reading only the declarations an edit touched (grammar/incremental.ts,
 * bench/COMPILER.md). After every edit of a seeded sequence (keystrokes inside a
 * table, lines added above everything, doc comments changed, declarations
 * duplicated, moved and deleted, syntax errors made and fixed) the result
 * must equal `compileSource` on the same text, and an edit inside one
 * declaration must re-read that declaration alone.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { compileSource, IncrementalCompiler } from "../../compiler/compile.js";
import { IncrementalParser } from "../../grammar/incremental.js";
import { syntheticSchema } from "../../bench/synthetic.js";
import { rng } from "../support/rng.js";

const root = path.resolve(import.meta.dirname, "../..");

/** The text cut before each line that starts a top-level declaration. */
const declarations = (text: string): string[] => text.split(/\n(?=(?:table|enum|domain|api|generate)\b)/);

type Edit = (text: string, random: () => number) => string;

const at = (text: string, random: () => number, needle: RegExp): number => {
  const hits = [...text.matchAll(needle)].map((m) => m.index);
  return hits.length > 0 ? hits[Math.floor(random() * hits.length)]! : -1;
};

const EDITS: Edit[] = [
  // a keystroke in a column name
  (t, r) => {
    const i = at(t, r, /\n {2}[a-z_]+ /g);
    return i < 0 ? t : t.slice(0, i + 3) + "x" + t.slice(i + 3);
  },
  // lines added above everything: every later span moves
  (t) => "// a comment\n\n" + t,
  // a line removed from the top
  (t) => (t.startsWith("// a comment\n\n") ? t.slice("// a comment\n\n".length) : t),
  // a doc comment added before a declaration
  (t, r) => {
    const i = at(t, r, /\ntable /g);
    return i < 0 ? t : t.slice(0, i + 1) + "/// Documented.\n" + t.slice(i + 1);
  },
  // an unknown attribute (an IR error) or its removal
  (t, r) =>
    t.includes("@filtrable")
      ? t.replace("@filtrable", "@filterable")
      : t.replace(/@filterable/, () => (r() < 2 ? "@filtrable" : "")),
  // a syntax error, then its fix
  (t) => (t.includes("@@@") ? t.replace("@@@", "") : t.replace(/\n {2}([a-z_]+ )/, "\n  $1@@@")),
  // a declaration duplicated, moved or deleted
  (t, r) => {
    const d = declarations(t);
    const i = Math.floor(r() * d.length);
    const j = Math.floor(r() * d.length);
    const choice = r();
    if (choice < 0.4) d.splice(j, 0, d[i]!);
    else if (choice < 0.7) d.splice(j, 0, ...d.splice(i, 1));
    else if (d.length > 2) d.splice(i, 1);
    return d.join("\n");
  },
];

function expectSameAsCompileSource(compiler: IncrementalCompiler, text: string, file: string): void {
  const got = compiler.compile(text, file);
  const want = compileSource(text, file);
  expect(got.diagnostics).toEqual(want.diagnostics);
  expect(got.schema).toEqual(want.schema);
  expect(got.ok).toBe(want.ok);
}

const inputs: [string, string][] = [
  ["synthetic (25 tables)", syntheticSchema(25)],
  ["spec.resource", readFileSync(path.join(root, "spec.resource"), "utf8")],
  ["fixtures/pagila/pagila.resource", readFileSync(path.join(root, "fixtures/pagila/pagila.resource"), "utf8")],
  ["fixtures/access/schema.resource", readFileSync(path.join(root, "fixtures/access/schema.resource"), "utf8")],
];

describe("IncrementalCompiler gives what compileSource gives", () => {
  it.each(inputs)("%s, over 60 seeded edits", (name, original) => {
    const compiler = new IncrementalCompiler();
    const random = rng(name.length * 7919);
    let text = original;
    expectSameAsCompileSource(compiler, text, name);
    for (let i = 0; i < 60; i++) {
      text = EDITS[Math.floor(random() * EDITS.length)]!(text, random);
      expectSameAsCompileSource(compiler, text, name);
    }
  });
});

describe("IncrementalCompiler on syntax errors being typed", () => {
  const PIECES = [
    "@",
    "@@",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "=",
    ",",
    "table",
    "enum x",
    '"x"',
    "?",
    "::",
    "x y",
    "\n}\n",
  ];

  it.each(inputs)("%s: a piece of syntax inserted at 150 seeded places, then removed", (name, original) => {
    const compiler = new IncrementalCompiler();
    const random = rng(name.length * 104729);
    expectSameAsCompileSource(compiler, original, name);
    for (let i = 0; i < 150; i++) {
      const at = Math.floor(random() * original.length);
      const piece = PIECES[Math.floor(random() * PIECES.length)]!;
      expectSameAsCompileSource(compiler, original.slice(0, at) + piece + original.slice(at), name);
      expectSameAsCompileSource(compiler, original, name);
    }
  });

  it("reads a declaration with a syntax error with its neighbour, and one with a stray character alone", () => {
    const parser = new IncrementalParser();
    const text = syntheticSchema(40);
    parser.parse(text, "s.resource");
    const typing = parser.parse(text.replace("  notes      text?\n", "  notes      text? =\n"), "s.resource");
    expect(typing.reread).toBe(2);
    expect(typing.diagnostics.some((d) => d.severity === "error")).toBe(true);
    parser.parse(text, "s.resource");
    const stray = parser.parse(text.replace("  notes      text?\n", "  notes      text? @\n"), "s.resource");
    expect(stray.reread).toBe(1);
    expect(stray.diagnostics.map((d) => d.code)).toContain("unexpected-character");
  });
});

describe("IncrementalParser re-reads only what changed", () => {
  it("one declaration after a keystroke inside it; after lines added above, only the first (its key holds them)", () => {
    const parser = new IncrementalParser();
    let text = syntheticSchema(40);
    expect(parser.parse(text, "s.resource").reread).toBe(41);
    text = text.replace("table t0020 {\n  id ", "table t0020 {\n  idx ");
    const edited = parser.parse(text, "s.resource");
    expect(edited.reread).toBe(1);
    expect(edited.schema.tables[19]!.columns[0]!.name).toBe("idx");
    text = "\n\n" + text;
    const moved = parser.parse(text, "s.resource");
    expect(moved.reread).toBe(1);
    expect(moved.schema.tables[39]!.span.line).toBe(parser.parse(text, "other.resource").schema.tables[39]!.span.line);
  });

  it("takes the whole-file parse on an unterminated string, and reuses again once it is fixed", () => {
    const parser = new IncrementalParser();
    const text = syntheticSchema(10);
    parser.parse(text, "s.resource");
    const broken = parser.parse(text.replace("table t0005 {", 'table t0005 { "open'), "s.resource");
    expect(broken.reread).toBe(-1);
    expect(broken.diagnostics.some((d) => d.severity === "error")).toBe(true);
    expect(parser.parse(text, "s.resource").reread).toBe(0);
  });
});
