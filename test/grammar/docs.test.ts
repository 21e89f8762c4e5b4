/**
 * The language reference and the syntax diagrams stay in step with the
 * grammar: every attribute, table attribute, setting and built-in type is
 * documented, and docs/syntax-diagrams.html is what the parser generates.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  BLOCK_ATTRIBUTES,
  BUILTIN_TYPES,
  COLUMN_ATTRIBUTES,
  OP_NAMES,
  RESOURCE_SETTINGS,
} from "../../grammar/index.js";
import { syntaxDiagramsHtml } from "../../grammar/diagrams.js";

const read = (rel: string) => readFileSync(fileURLToPath(new URL(`../../${rel}`, import.meta.url)), "utf8");
const LANGUAGE = read("docs/language.md");

describe("docs/language.md", () => {
  it.each(COLUMN_ATTRIBUTES.map((a) => [a]))("documents @%s", (a) => {
    expect(LANGUAGE).toContain("`@" + a);
  });
  it.each(BLOCK_ATTRIBUTES.map((a) => [a]))("documents @@%s", (a) => {
    expect(LANGUAGE).toContain("`@@" + a);
  });
  it.each(RESOURCE_SETTINGS.map((s) => [s]))("documents the resource setting %s", (s) => {
    expect(LANGUAGE).toContain("| `" + s + "` |");
  });
  it("documents every op name and every type spelling", () => {
    for (const op of Object.keys(OP_NAMES)) expect(LANGUAGE).toMatch(new RegExp(`\\b${op}\\b`));
    for (const spelling of BUILTIN_TYPES.keys()) expect(LANGUAGE, spelling).toContain("`" + spelling + "`");
  });
});

describe("docs/syntax-diagrams.html", () => {
  it("is generated from the current parser (run npx tsx grammar/diagrams.ts)", () => {
    expect(read("docs/syntax-diagrams.html")).toBe(syntaxDiagramsHtml());
  });
});
