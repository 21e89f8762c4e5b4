/**
 * Each broken input under fixtures/parse-errors produces the expected
 * precise diagnostics (code, message, line, column), and nothing else.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "../../grammar/index.js";

const ROOT = fileURLToPath(new URL("../../fixtures/parse-errors/", import.meta.url));

type Expected = [code: string, message: string, line: number, column: number];

const EXPECTED: Record<string, Expected[]> = {
  "unknown-attribute": [["unknown-attribute", `Unknown attribute "@sortabel". Did you mean "@sortable"?`, 4, 17]],
  "unknown-type": [["unknown-type", `Unknown type "intger". Did you mean "integer"?`, 4, 10]],
  "duplicate-column": [
    ["duplicate-column", `Duplicate column "title" in table "films" (first declared at line 4)`, 5, 3],
  ],
  "missing-brace": [["missing-brace", `Missing "}" to close table "films" opened at line 2`, 6, 1]],
  "unclosed-at-end": [["missing-brace", `Missing "}" to close resource "/films" opened at line 5`, 5, 21]],
  "bad-setting-value": [
    ["invalid-value", `Expected a whole number for "max_page_size", found the string "100"`, 7, 21],
  ],
  "unknown-op": [["unknown-op", `Unknown operation "lst". Did you mean "list"?`, 5, 36]],
  "unterminated-string": [
    ["unterminated-string", `Unterminated string: add a closing " before the end of the line`, 4, 29],
  ],
  "access-rule": [
    [
      "expected-value",
      `Expected claim.<name>, a string, a number, true, false, null or a list after "=", found "}"`,
      15,
      3,
    ],
  ],
  "garbage-tokens": [["unexpected-character", `Unexpected characters "#! $$ ;;"`, 6, 1]],
  "stray-tokens": [
    ["unexpected-token", `Unexpected "]": expected a declaration (table, enum, domain, api, auth or generate)`, 6, 1],
  ],
  "missing-type": [["expected-type", `Expected a column type after "title", found "@sortable"`, 4, 9]],
  "unknown-setting": [
    ["unknown-setting", `Unknown resource setting "default_srot". Did you mean "default_sort"?`, 7, 5],
  ],
  "primary-key-twice": [
    [
      "duplicate-primary-key",
      `Column "actor_id" is marked @primary_key but the table also declares @@primary_key at line 6: keep one`,
      3,
      20,
    ],
  ],
  "duplicate-resource": [
    [
      "duplicate-resource",
      `Table "films" already has a resource block at line 5: a table is exposed at one path`,
      6,
      3,
    ],
  ],
  "bad-attribute-argument": [
    ["invalid-argument", `Expected a name for the target table of @ref, found the string "language"`, 4, 38],
  ],
  "duplicate-enum-value": [["duplicate-enum-value", `Duplicate value "PG" in enum "mpaa_rating"`, 2, 35]],
  "two-errors": [
    [
      "unexpected-token",
      `Unexpected "=" in table "films": expected a column, a "@@" attribute, a resource block or "}"`,
      4,
      14,
    ],
    ["unknown-attribute", `Unknown attribute "@serchable". Did you mean "@searchable"?`, 9, 16],
  ],
};

describe("fixtures/parse-errors", () => {
  it("has an expectation for every fixture folder and a folder for every expectation", () => {
    expect(readdirSync(ROOT).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, expected] of Object.entries(EXPECTED)) {
    it(name, () => {
      const file = path.join(ROOT, name, "schema.resource");
      const r = parse(readFileSync(file, "utf8"), file);
      expect(r.diagnostics.map((d) => [d.code, d.message, d.span.line, d.span.column])).toEqual(expected);
      for (const d of r.diagnostics) {
        expect(d.severity).toBe("error");
        expect(d.span.file).toBe(file);
        expect(d.span.length).toBeGreaterThan(0);
      }
    });
  }

  it("keeps building the IR after a syntax error (recovery)", () => {
    const file = path.join(ROOT, "two-errors", "schema.resource");
    const r = parse(readFileSync(file, "utf8"), file);
    expect(r.schema.tables.map((t) => t.name)).toEqual(["films", "actors"]);
    expect(r.schema.tables[1]!.columns.map((c) => c.name)).toEqual(["id", "name"]);
  });

  it("parses the declarations after stray tokens", () => {
    const file = path.join(ROOT, "stray-tokens", "schema.resource");
    const r = parse(readFileSync(file, "utf8"), file);
    expect(r.schema.tables.map((t) => t.name)).toEqual(["films", "actors"]);
    expect(r.schema.tables[1]!.columns[1]!.sortable).toEqual({});
  });
});
