/**
 * The document printer (compiler/backends/doc-printer.ts) lays documents
 * out as prettier's own printer does (decision 1327): seeded random
 * documents (groups, indentation, soft, plain and hard lines, text that
 * depends on a break, fluid assignments) are built once with our builders
 * and once with prettier's, from the same seed, and printed by each.
 */
import { doc as prettierDoc } from "prettier";
import { describe, expect, it } from "vitest";
import * as ours from "../../compiler/backends/doc-printer.js";
import { rng } from "../support/rng.js";

/** The document builders a random document is made with: ours or prettier's, behind one shape. */
interface Builders<D> {
  line: D;
  softline: D;
  hardline: D;
  group(contents: D[], id?: symbol): D;
  indent(contents: D[]): D;
  ifBreak(broken: string, flat: string): D;
  indentIfBreak(contents: D, id: symbol): D;
  join(separator: D[], parts: D[]): D;
}

const OURS: Builders<ours.Doc> = {
  line: ours.line,
  softline: ours.softline,
  hardline: ours.hardline,
  group: (contents, id) => ours.group(contents, id),
  indent: (contents) => ours.indent(contents),
  ifBreak: (broken, flat) => ours.ifBreak(broken, flat),
  indentIfBreak: (contents, id) => ours.indentIfBreak(contents, id),
  join: (separator, parts) => ours.join(separator, parts),
};

type PrettierDoc = Parameters<typeof prettierDoc.printer.printDocToString>[0];
const b = prettierDoc.builders;
const PRETTIER: Builders<PrettierDoc> = {
  line: b.line,
  softline: b.softline,
  hardline: b.hardline,
  group: (contents, id) => b.group(contents, id ? { id } : {}),
  indent: (contents) => b.indent(contents),
  ifBreak: (broken, flat) => b.ifBreak(broken, flat),
  indentIfBreak: (contents, id) => b.indentIfBreak(contents, { groupId: id }),
  join: (separator, parts) => b.join(separator, parts),
};

/** A random document drawn from `next`; the same draws give the same document whatever the builders. */
function randomDoc<D>(next: () => number, depth: number, B: Builders<D>): D | string {
  const word = (): string => "abcdefghijklmnopqrstuvwxyz".slice(0, 1 + Math.floor(next() * 14));
  const children = (min: number, spread: number): (D | string)[] =>
    Array.from({ length: min + Math.floor(next() * spread) }, () => randomDoc(next, depth + 1, B));
  switch (Math.floor(next() * (depth > 3 ? 3 : 9))) {
    case 0:
    case 1:
      return word();
    case 2:
      return [B.line, B.softline, B.hardline][Math.floor(next() * 3)];
    case 3:
    case 4:
      return B.group(children(1, 4) as D[]);
    case 5:
      return B.indent(["x", B.softline, randomDoc(next, depth + 1, B)] as D[]);
    case 6:
      return B.group([randomDoc(next, depth + 1, B), B.ifBreak(",", ";")] as D[]);
    case 7: {
      // A fluid assignment: the value moves to the next line when its start does not fit.
      const id = Symbol("assignment");
      return B.group([
        "left =",
        B.group([B.indent([B.line])], id),
        B.indentIfBreak(randomDoc(next, depth + 1, B) as D, id),
      ] as D[]);
    }
    default:
      return B.group([
        "(",
        B.indent([B.softline, B.join([",", B.line] as D[], children(2, 3) as D[])]),
        B.softline,
        ")",
      ] as D[]);
  }
}

describe("printDoc lays documents out as prettier's printer", () => {
  it("agrees on 2,000 random documents at widths 20, 40 and 80", () => {
    let broken = 0;
    for (let i = 0; i < 2000; i++) {
      const width = [20, 40, 80][i % 3];
      const mine = randomDoc(rng(i + 1), 0, OURS);
      const theirs = randomDoc(rng(i + 1), 0, PRETTIER);
      const expected = prettierDoc.printer.printDocToString(theirs, { printWidth: width, tabWidth: 2, useTabs: false })
        .formatted as string;
      expect(ours.printDoc(mine, 0, width), `document ${i} at ${width}`).toBe(expected);
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
