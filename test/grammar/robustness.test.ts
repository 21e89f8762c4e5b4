/**
 * `parse` never throws, whatever the input: a few hundred random mutations
 * of spec.resource (characters deleted, duplicated, inserted) each return a
 * schema and well-formed diagnostics. The generator is seeded, so a failure
 * reproduces.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";
import { rng } from "../support/rng.js";

const SPEC = readFileSync(fileURLToPath(new URL("../../spec.resource", import.meta.url)), "utf8");

const ALPHABET = `{}()[]@@"'=:,-?/*\n abcz019_é`;

function mutate(text: string, random: () => number): string {
  let out = text;
  const edits = 1 + Math.floor(random() * 6);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (out.length + 1));
    const kind = Math.floor(random() * 3);
    const len = 1 + Math.floor(random() * 12);
    if (kind === 0) out = out.slice(0, at) + out.slice(at + len);
    else if (kind === 1) out = out.slice(0, at) + out.slice(at, at + len) + out.slice(at);
    else out = out.slice(0, at) + ALPHABET[Math.floor(random() * ALPHABET.length)] + out.slice(at);
  }
  return out;
}

describe("parse never throws", () => {
  it("returns a schema and located diagnostics for 400 mutations of spec.resource", () => {
    const random = rng(20240611);
    let withErrors = 0;
    for (let i = 0; i < 400; i++) {
      const text = mutate(SPEC, random);
      const r = parse(text, "mutated.resource");
      expect(Array.isArray(r.schema.tables)).toBe(true);
      for (const d of r.diagnostics) {
        expect(d.code, text).not.toBe("internal-error");
        expect(d.span.offset).toBeGreaterThanOrEqual(0);
        expect(d.span.offset + d.span.length).toBeLessThanOrEqual(text.length);
        expect(d.span.line).toBeGreaterThanOrEqual(1);
        expect(d.message.length).toBeGreaterThan(0);
      }
      if (r.diagnostics.length > 0) withErrors++;
    }
    expect(withErrors).toBeGreaterThan(100);
  });

  it("copes with degenerate inputs", () => {
    for (const text of [
      "",
      " ",
      "\n\n",
      "{",
      "}",
      "table",
      "table t {",
      `"`,
      "/*",
      "///",
      "@@",
      "@",
      "table t { a int @ref( }",
      "\u0000",
      "é",
    ]) {
      const r = parse(text, "x.resource");
      expect(
        r.diagnostics.every((d) => d.code !== "internal-error"),
        JSON.stringify(text),
      ).toBe(true);
    }
    expect(parse("", "x.resource")).toEqual({
      schema: { file: "x.resource", enums: [], domains: [], tables: [] },
      diagnostics: [],
    });
  });
});
