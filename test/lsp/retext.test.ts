/**
 * `Analysis.retext`: completion typed with an edit is answered before the
 * edit is compiled, from the tokens of the declaration around the cursor,
 * lexed alone (bench/COMPILER.md). Those tokens must be exactly the ones lexing the
 * whole new text gives there (offsets, lines, columns), and completion from
 * them must offer what a full analysis of the new text offers.
 */
import { describe, expect, it } from "vitest";
import { lex } from "../../grammar/lexer.js";
import { SourceMap } from "../../grammar/span.js";
import { Analysis } from "../../cli/lsp/analysis.js";
import { complete } from "../../cli/lsp/completion.js";
import { syntheticSchema } from "../../bench/synthetic.js";

const BASE = syntheticSchema(30);
const place = (offset: number) => ({
  offset,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
});
const shape = (t: {
  image: string;
  startOffset: number;
  endOffset?: number;
  startLine?: number;
  startColumn?: number;
  endLine?: number;
  endColumn?: number;
}) => [t.image, t.startOffset, t.endOffset, t.startLine, t.startColumn, t.endLine, t.endColumn].join(":");

/** The offset just after the `nth` occurrence of `needle` in `text`. */
function after(text: string, needle: string, nth: number): number {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  return at + needle.length;
}

describe("Analysis.retext", () => {
  const previous = new Analysis(BASE, "s.resource");

  it.each([
    ["an attribute started after a column", "  notes      text?", " @", 2],
    ["a type being written", '  tags       text[]      @default("{}")\n', "  extra int", 10],
    ["lines added in a table", "  @@index([name])\n", "\n\n  @@unique([code])\n", 0],
    ["a reference target being typed", "@ref(prev, ", "t00", 3],
  ])("%s: the tokens and the completion a full analysis gives", (_what, needle, insert, extra) => {
    for (const nth of [0, 7, 28]) {
      const at = after(BASE, needle, nth);
      const text = BASE.slice(0, at) + insert + BASE.slice(at);
      const cursor = at + extra;
      const quick = previous.retext(text, cursor);
      const full = lex(text, new SourceMap("s.resource", text)).tokens.map(shape);
      const mine = quick.tokens.map(shape);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.length).toBeLessThan(full.length);
      const first = full.indexOf(mine[0]!);
      expect(full.slice(first, first + mine.length)).toEqual(mine);
      const labels = (a: Analysis) => complete(a, place(cursor)).map((i) => i.label);
      expect(labels(quick)).toEqual(labels(new Analysis(text, "s.resource")));
      if (insert === " @") expect(labels(quick)).toContain("@filterable");
    }
  });

  it("lexes the whole text when the edit opens a block comment", () => {
    const at = after(BASE, "  notes      text?", 3);
    const text = BASE.slice(0, at) + " /* " + BASE.slice(at);
    const quick = previous.retext(text, at + 4);
    expect(quick.tokens.map(shape)).toEqual(lex(text, new SourceMap("s.resource", text)).tokens.map(shape));
  });
});
