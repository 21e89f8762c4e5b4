/**
 * The document printer (compiler/backends/doc-printer.ts) lays documents
 * out as prettier's own printer does (decision 1327): seeded random
 * documents (groups, indentation, soft, plain and hard lines, text that
 * depends on a break, fluid assignments) are printed by both and compared.
 */
import { doc as prettierDoc } from "prettier";
import { describe, expect, it } from "vitest";
import * as ours from "../../compiler/backends/doc-printer.js";

type PrettierDoc = Parameters<typeof prettierDoc.printer.printDocToString>[0];
const b = prettierDoc.builders;

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same random document built twice: with our builders and with prettier's. */
function randomDoc(next: () => number, depth: number): [ours.Doc, PrettierDoc] {
  const pick = Math.floor(next() * (depth > 3 ? 3 : 9));
  const word = (): string => "abcdefghijklmnopqrstuvwxyz".slice(0, 1 + Math.floor(next() * 14));
  switch (pick) {
    case 0:
    case 1: {
      const w = word();
      return [w, w];
    }
    case 2: {
      const which = Math.floor(next() * 3);
      return which === 0
        ? [ours.line, b.line]
        : which === 1
          ? [ours.softline, b.softline]
          : [ours.hardline, b.hardline];
    }
    case 3:
    case 4: {
      const parts = Array.from({ length: 1 + Math.floor(next() * 4) }, () => randomDoc(next, depth + 1));
      return [ours.group(parts.map((p) => p[0])), b.group(parts.map((p) => p[1]))];
    }
    case 5: {
      const [o, p] = randomDoc(next, depth + 1);
      return [ours.indent(["x", ours.softline, o]), b.indent(["x", b.softline, p])];
    }
    case 6: {
      const [o, p] = randomDoc(next, depth + 1);
      return [
        [o, ours.ifBreak(",", ";")],
        [p, b.ifBreak(",", ";")],
      ];
    }
    case 7: {
      // A fluid assignment: the value moves to the next line when its start does not fit.
      const [o, p] = randomDoc(next, depth + 1);
      const id = Symbol("ours");
      const pid = Symbol("prettier");
      return [
        ours.group(["left =", ours.group(ours.indent(ours.line), id), ours.indentIfBreak(o, id)]),
        b.group(["left =", b.group(b.indent(b.line), { id: pid }), b.indentIfBreak(p, { groupId: pid })]),
      ];
    }
    default: {
      const parts = Array.from({ length: 2 + Math.floor(next() * 3) }, () => randomDoc(next, depth + 1));
      return [
        ours.group([
          "(",
          ours.indent([
            ours.softline,
            ours.join(
              [",", ours.line],
              parts.map((p) => p[0]),
            ),
          ]),
          ours.softline,
          ")",
        ]),
        b.group([
          "(",
          b.indent([
            b.softline,
            b.join(
              [",", b.line],
              parts.map((p) => p[1]),
            ),
          ]),
          b.softline,
          ")",
        ]),
      ];
    }
  }
}

describe("printDoc lays documents out as prettier's printer", () => {
  it("agrees on 2,000 random documents at widths 20, 40 and 80", () => {
    const next = random(1327);
    let broken = 0;
    for (let i = 0; i < 2000; i++) {
      const [o, p] = randomDoc(next, 0);
      const width = [20, 40, 80][i % 3];
      const expected = prettierDoc.printer.printDocToString(p, { printWidth: width, tabWidth: 2, useTabs: false })
        .formatted as string;
      expect(ours.printDoc(o, 0, width), `document ${i} at ${width}`).toBe(expected);
      if (expected.includes("\n")) broken++;
    }
    // The sample must exercise breaking, not only flat documents.
    expect(broken).toBeGreaterThan(500);
  });

  it("starts at a given column and indents broken lines from it", () => {
    const d = ours.group([
      "f(",
      ours.indent([ours.softline, "a".repeat(30), ",", ours.line, "b".repeat(30)]),
      ours.softline,
      ")",
    ]);
    expect(ours.printDoc(d, 4, 40)).toBe(`f(\n      ${"a".repeat(30)},\n      ${"b".repeat(30)}\n    )`);
    expect(ours.printDoc(d, 4, 80)).toBe(`f(${"a".repeat(30)}, ${"b".repeat(30)})`);
  });
});
