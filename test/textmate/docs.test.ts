/**
 * docs/language.md and docs/language.html are up to date: the reference
 * tables are those reference.ts (the hover text) produces, the HTML is the
 * page rendered with the TextMate grammar through shiki (regenerate both
 * with `npx tsx grammar/textmate/render-docs.ts`), and every `resource`
 * example on the page parses — alone (then in resc fmt's layout), or as the
 * body of a table.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { formatSource } from "../../grammar/format/index.js";
import { parse } from "../../grammar/index.js";
import {
  ACCESS_SETTINGS,
  AUTH_SETTINGS,
  BLOCK_ATTRIBUTES,
  COLUMN_ATTRIBUTES,
  JWT_SETTINGS,
  RESOURCE_SETTINGS,
} from "../../grammar/index.js";
import {
  ACCESS_SETTING_DOCS,
  AUTH_SETTING_DOCS,
  COLUMN_ATTRIBUTE_DOCS,
  JWT_SETTING_DOCS,
  RESOURCE_SETTING_DOCS,
  TABLE_ATTRIBUTE_DOCS,
} from "../../grammar/textmate/reference.js";
import { languageHtml, withReferenceTables } from "../../grammar/textmate/render-docs.js";

const DOCS = path.resolve(import.meta.dirname, "../../docs");
const MARKDOWN = readFileSync(path.join(DOCS, "language.md"), "utf8");

describe("the reference text", () => {
  it("describes every attribute and resource setting the parser knows, and nothing else", () => {
    expect(Object.keys(COLUMN_ATTRIBUTE_DOCS).sort()).toEqual([...COLUMN_ATTRIBUTES].sort());
    expect(Object.keys(TABLE_ATTRIBUTE_DOCS).sort()).toEqual([...BLOCK_ATTRIBUTES].sort());
    expect(Object.keys(RESOURCE_SETTING_DOCS).sort()).toEqual([...RESOURCE_SETTINGS].sort());
  });

  it("describes every setting of the auth, jwt and access blocks (docs/decisions/1367-access-rules.md)", () => {
    expect(Object.keys(AUTH_SETTING_DOCS)).toEqual([...AUTH_SETTINGS]);
    expect(Object.keys(JWT_SETTING_DOCS)).toEqual([...JWT_SETTINGS]);
    expect(Object.keys(ACCESS_SETTING_DOCS)).toEqual([...ACCESS_SETTINGS]);
  });
});

describe("docs/language.md", () => {
  it("holds the reference tables generated from reference.ts", () => {
    expect(MARKDOWN).toBe(withReferenceTables(MARKDOWN));
    expect(MARKDOWN).toContain(COLUMN_ATTRIBUTE_DOCS["inverse"]!.summary);
  });

  const examples = [...MARKDOWN.matchAll(/```resource\n([\s\S]*?)```/g)].map((m) => m[1]!);

  it("has resource examples", () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
  });

  it.each(examples.map((e, i) => [i + 1, e]))("example %i parses, alone or as a table body", (_, example) => {
    const alone = parse(example, "example.resource").diagnostics.filter((d) => d.severity === "error");
    if (alone.length === 0) {
      // A whole-file example is written the way resc fmt writes it.
      const formatted = formatSource(example, "example.resource");
      expect(formatted.ok && formatted.text).toBe(example);
      return;
    }
    const inTable = parse(`table t {\n${example}\n}\n`, "example.resource").diagnostics.filter(
      (d) => d.severity === "error",
    );
    expect(inTable.map((d) => d.message)).toEqual([]);
  });
});

describe("docs/language.html", () => {
  it("is language.md rendered with the resource grammar", async () => {
    const html = await languageHtml(MARKDOWN);
    expect(readFileSync(path.join(DOCS, "language.html"), "utf8")).toBe(html);
    expect(html).toContain('<span style="color:#D73A49">table</span>');
  }, 60_000);
});
