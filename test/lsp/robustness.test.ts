/**
 * The language features never throw, whatever the text and wherever the
 * cursor: hover, completion, definition and symbols run at every offset of
 * the reference schema and of seeded random mutations of it (half-typed
 * text is the normal case in an editor).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Analysis } from "../../cli/lsp/analysis.js";
import { complete } from "../../cli/lsp/completion.js";
import { hover } from "../../cli/lsp/hover.js";
import { declarationSpan, resolve } from "../../cli/lsp/resolve.js";
import { documentSymbols } from "../../cli/lsp/symbols.js";
import { rng } from "../support/rng.js";

const SPEC = readFileSync(path.resolve(import.meta.dirname, "../../spec.resource"), "utf8");
const RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

function everyFeatureEverywhere(text: string, step: number): number {
  const a = new Analysis(text, "x.resource");
  expect(Array.isArray(documentSymbols(a.schema))).toBe(true);
  let answered = 0;
  for (let offset = 0; offset <= text.length; offset += step) {
    if (hover(a, offset)) answered++;
    const r = resolve(a, offset);
    if (r) declarationSpan(r.meaning);
    answered += complete(a, { offset, range: RANGE }).length > 0 ? 1 : 0;
  }
  return answered;
}

describe("language features on any text", () => {
  it("answer at every offset of spec.resource", () => {
    expect(everyFeatureEverywhere(SPEC, 1)).toBeGreaterThan(SPEC.length / 4);
  });

  it("do not throw on 20 random mutations", () => {
    const random = rng(5150);
    const alphabet = `{}()[]@@"'=:,-?/*\n abz_`;
    for (let i = 0; i < 20; i++) {
      let text = SPEC;
      for (let k = 0; k < 4; k++) {
        const at = Math.floor(random() * text.length);
        const cut = Math.floor(random() * 10);
        text =
          text.slice(0, at) +
          (random() < 0.5 ? alphabet[Math.floor(random() * alphabet.length)] : "") +
          text.slice(at + cut);
      }
      everyFeatureEverywhere(text, 17);
    }
  });
});
