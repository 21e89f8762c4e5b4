/**
 * Re-lexing only around an edit (grammar/relex.ts, bench/COMPILER.md) gives what
 * lexing the whole text gives: after every edit of seeded sequences that
 * pile up (pieces of syntax, comments and strings opened and closed, lines
 * joined and split right at declaration keywords, whole declarations
 * pasted), the tokens, doc comments and diagnostics equal `lex` followed
 * by `closeDanglingParens` on the same text, field by field; and a
 * keystroke inside one table reuses the other tables' tokens.
 */
import type { IToken } from "chevrotain";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { syntheticSchema } from "../../bench/synthetic.js";
import { lex } from "../../grammar/lexer.js";
import { closeDanglingParens } from "../../grammar/recover.js";
import { IncrementalLexer } from "../../grammar/relex.js";
import { SourceMap } from "../../grammar/span.js";
import { rng } from "../support/rng.js";

const root = path.resolve(import.meta.dirname, "../..");

/** Every field of a token a caller reads. */
const fields = (ts: IToken[]): unknown[] =>
  ts.map((t) => [
    t.tokenType.name,
    t.image,
    t.startOffset,
    t.endOffset,
    t.startLine,
    t.endLine,
    t.startColumn,
    t.endColumn,
  ]);

function expectSameAsLex(lexer: IncrementalLexer, text: string): boolean {
  const source = new SourceMap("f.resource", text);
  const got = lexer.lex(text, source);
  const lexed = lex(text, source);
  const closed = closeDanglingParens(lexed.tokens, source);
  expect(fields(got.lexed.tokens)).toEqual(fields(lexed.tokens));
  expect(fields(got.lexed.docComments)).toEqual(fields(lexed.docComments));
  expect(got.lexed.diagnostics).toEqual(lexed.diagnostics);
  expect(fields(got.closed.tokens)).toEqual(fields(closed.tokens));
  expect(got.closed.diagnostics).toEqual(closed.diagnostics);
  return got.reused;
}

const PIECES = [
  "x",
  " ",
  "\n",
  "/*",
  "*/",
  "//",
  "/// a doc\n",
  '"',
  '"x"',
  "(",
  ")",
  "@",
  "table",
  "\ntable z {\n  id int @primary_key\n}\n",
  "@default(now()",
  "}",
  "{",
  "é",
  "#",
  "\r\n",
  "\r",
];

/** One edit: a piece inserted, a few characters deleted, or a piece put right before or after a line's first word. */
function edit(text: string, random: () => number): string {
  const choice = random();
  if (choice < 0.15) {
    // At a declaration keyword: what re-lexing restarts and resumes at.
    const starts = [...text.matchAll(/^(?:table|enum|domain|api|generate)\b/gm)].map((m) => m.index);
    if (starts.length > 0) {
      const at = starts[Math.floor(random() * starts.length)]!;
      const piece = PIECES[Math.floor(random() * PIECES.length)]!;
      return random() < 0.5 ? text.slice(0, at) + piece + text.slice(at) : text.slice(0, at - 1) + text.slice(at);
    }
  }
  const at = Math.floor(random() * text.length);
  if (choice < 0.35) return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 4));
  return text.slice(0, at) + PIECES[Math.floor(random() * PIECES.length)]! + text.slice(at);
}

const inputs: [string, string][] = [
  ["synthetic (30 tables)", syntheticSchema(30)],
  ["spec.resource", readFileSync(path.join(root, "spec.resource"), "utf8")],
  ["fixtures/pagila/pagila.resource", readFileSync(path.join(root, "fixtures/pagila/pagila.resource"), "utf8")],
  ["fixtures/access/schema.resource", readFileSync(path.join(root, "fixtures/access/schema.resource"), "utf8")],
];

describe("IncrementalLexer gives what lex gives", () => {
  it.each(inputs)("%s, over 300 seeded edits that pile up", (name, original) => {
    const random = rng(name.length * 131);
    const lexer = new IncrementalLexer();
    let text = original;
    let reused = 0;
    expectSameAsLex(lexer, text);
    for (let i = 0; i < 300; i++) {
      // Now and then back to the clean text, so reuse starts again from a clean version.
      text = random() < 0.1 ? original : edit(text, random);
      if (expectSameAsLex(lexer, text)) reused++;
    }
    // The sequences must exercise the reuse, not only the whole-text lexing.
    expect(reused).toBeGreaterThan(30);
  });

  it("counts a lone \\r before the re-lexed window as a line end, as the lexer does", () => {
    const lexer = new IncrementalLexer();
    const text = "table a {\r  id int @primary_key\n}\n\ntable b {\n  id int @primary_key\n}\n\ntable c {\n  id int @primary_key\n}\n";
    expectSameAsLex(lexer, text);
    expect(expectSameAsLex(lexer, text.replace("table b {\n  id", "table b {\n  idx"))).toBe(true);
  });

  it("reuses the other tables' tokens after a keystroke inside one, and after lines added above", () => {
    const lexer = new IncrementalLexer();
    const text = syntheticSchema(40);
    expect(expectSameAsLex(lexer, text)).toBe(false);
    const typed = text.replace("table t0020 {\n  id ", "table t0020 {\n  idx ");
    expect(expectSameAsLex(lexer, typed)).toBe(true);
    expect(expectSameAsLex(lexer, "// a comment\n\n" + typed)).toBe(true);
    // An opened comment swallows the rest: the whole text is lexed, and again until it lexes clean.
    const opened = typed.replace("table t0030 {", "/* table t0030 {");
    expect(expectSameAsLex(lexer, opened)).toBe(false);
    expect(expectSameAsLex(lexer, typed)).toBe(false);
    expect(expectSameAsLex(lexer, text)).toBe(true);
  });
});
