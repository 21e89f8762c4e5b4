/**
 * Diagnostics written inline: IR-building checks not covered by a fixture,
 * syntax messages, and the code-frame formatter.
 */
import { describe, expect, it } from "vitest";
import { formatDiagnostic, formatDiagnostics, parse } from "../../grammar/index.js";
import type { Diagnostic } from "../../language/ir.js";
import { inTable } from "./helpers.js";

function diags(text: string): [string, string, number, number][] {
  return parse(text, "x.resource").diagnostics.map((d) => [d.code, d.message, d.span.line, d.span.column]);
}

function codes(text: string): string[] {
  return parse(text, "x.resource").diagnostics.map((d) => d.code);
}

describe("IR-building diagnostics", () => {
  it("reports a duplicate attribute on the second use", () => {
    expect(diags(inTable("  a int @filterable @filterable"))).toEqual([
      ["duplicate-attribute", `Duplicate attribute "@filterable" on column "a"`, 2, 21],
    ]);
  });

  it("reports attributes with missing, extra or wrong arguments", () => {
    expect(codes(inTable("  a int @ref(org)"))).toEqual(["missing-argument"]);
    expect(codes(inTable("  a int @filterable(true)"))).toEqual(["invalid-argument"]);
    expect(codes(inTable("  a int @sortable(nulls: middle)"))).toEqual(["invalid-argument"]);
    expect(codes(inTable(`  a int @computed(42)`))).toEqual(["invalid-argument"]);
    expect(codes(inTable("  a int @ref(o, orgs, expandible)"))).toEqual(["invalid-argument"]);
    expect(codes(inTable('  a int @ref(o, orgs) @inverse(xs, limit: "20")'))).toEqual(["invalid-argument"]);
    expect(codes(inTable("  a int @default()"))).toEqual(["missing-argument"]);
  });

  it("suggests the right spelling of a named argument", () => {
    expect(diags(inTable("  a int? @sortable(null: last)"))).toEqual([
      ["unknown-argument", `@sortable has no argument "null". Did you mean "nulls"?`, 2, 20],
    ]);
  });

  it("points a table attribute written on a column to its @@ form", () => {
    expect(diags(inTable("  a int @index"))[0]!.slice(0, 2)).toEqual([
      "unknown-attribute",
      `"@index" is a table attribute: write @@index(…) in the table body, not on a column`,
    ]);
    expect(diags(inTable("  a int\n  @@filterable"))[0]![0]).toBe("unknown-attribute");
    expect(diags(inTable("  a int\n  @@indx([a])"))[0]!.slice(0, 2)).toEqual([
      "unknown-attribute",
      `Unknown table attribute "@@indx". Did you mean "@@index"?`,
    ]);
  });

  it("suggests declared enums and domains for a misspelt type, wherever they are declared", () => {
    expect(diags(`table t { s task_statu }\nenum task_status { a }`)).toEqual([
      ["unknown-type", `Unknown type "task_statu". Did you mean "task_status"?`, 1, 13],
    ]);
  });

  it("reports duplicate tables, enums and domains at the later name", () => {
    expect(diags(`table a { x int }\ntable a { y int }`)).toEqual([
      ["duplicate-table", `Table "a" is already declared at line 1`, 2, 7],
    ]);
    expect(codes(`enum e { x }\nenum e { y }`)).toEqual(["duplicate-enum"]);
    expect(codes(`domain d int\ndomain d text`)).toEqual(["duplicate-domain"]);
  });

  it("reports a second inline primary key", () => {
    expect(codes(inTable("  a int @primary_key\n  b int @primary_key"))).toEqual(["duplicate-primary-key"]);
  });

  it("reports unknown and repeated settings in every block", () => {
    expect(codes(`api { titel = "x" }`)).toEqual(["unknown-setting"]);
    expect(codes(`generate { dir = "a" dir = "b" }`)).toEqual(["duplicate-setting"]);
    expect(codes(`table t { id int\n resource "/t" { ops = [reads] ops = [list] } }`)).toEqual(["duplicate-setting"]);
    expect(codes(`api { security b { bearer_format = "JWT" } }`)).toEqual(["missing-setting"]);
  });

  it("reports malformed setting values", () => {
    expect(codes(`table t { id int\n resource "/t" { disable_transactions = 1 } }`)).toEqual(["invalid-value"]);
    expect(codes(`table t { id int\n resource "/t" { ops = crud } }`)).toEqual(["invalid-value"]);
    expect(codes(`table t { id int\n resource "/t" { max_filters = 2.5 } }`)).toEqual(["invalid-value"]);
    expect(codes(`table t { id int\n resource "/t" { default_sort = ["title"] } }`)).toEqual(["invalid-value"]);
    expect(codes(`api { title = 3 }`)).toEqual(["invalid-value"]);
  });

  it("says how to quote a resource path written as a bare name, and keeps the block", () => {
    const r = parse(`table t { id int\n  resource films { ops = [reads] }\n}`, "x.resource");
    expect(r.diagnostics.map((d) => [d.code, d.message, d.span.line, d.span.column])).toEqual([
      ["invalid-value", `The resource path is a string starting with "/": write resource "/films"`, 2, 12],
    ]);
    expect(r.schema.tables[0]!.resource).toMatchObject({ path: "/films", ops: ["list", "read"] });
  });

  it("names the sort term that is not a column", () => {
    expect(diags(inTable("  a int @ref(o, orgs) @inverse(xs, order: [-1])"))).toEqual([
      [
        "invalid-argument",
        "Expected a column name (-name for descending) in the order of @inverse, found the number -1",
        2,
        44,
      ],
    ]);
  });

  it("reports a second api block", () => {
    expect(codes(`api { title = "a" }\napi { title = "b" }`)).toEqual(["duplicate-block"]);
  });
});

describe("syntax diagnostics", () => {
  it("says what is missing after a setting name", () => {
    expect(diags(`table t { id int\n resource "/t" { ops [reads] } }`)).toEqual([
      ["syntax-error", `Expected "=" after setting "ops", found "["`, 2, 22],
    ]);
  });

  it("says a value is missing", () => {
    expect(diags(`table t { id int\n resource "/t" { ops = } }`)).toEqual([
      ["expected-value", `Expected a value after "=", found "}"`, 2, 24],
    ]);
  });

  it("reports a parenthesis left open", () => {
    expect(diags(inTable("  a int @ref(org, orgs\n  b int"))[0]!.slice(0, 2)).toEqual([
      "missing-paren",
      `Missing ")" to close the arguments of "@ref" opened at line 2, column 13`,
    ]);
  });

  it("reports a stray closing brace", () => {
    expect(diags(`table t { id int }\n}`)).toEqual([
      ["unexpected-token", `Unexpected "}": there is no open block to close`, 2, 1],
    ]);
  });

  it("reports a path that is not a string", () => {
    expect(codes(`table t { id int\n resource /t { } }`)).toContain("unexpected-character");
  });

  it("reports an unterminated block comment once", () => {
    expect(diags(`table t { id int }\n/* never closed\ntable u { }`)).toEqual([
      ["unterminated-comment", `Unterminated block comment: "/*" is never closed by "*/"`, 2, 1],
    ]);
  });
});

describe("code frames", () => {
  const source = `table films {\n  id    bigint @primary_key\n  title text   @sortabel\n}\n`;
  const d = parse(source, "spec.resource").diagnostics[0]!;

  it("formats a diagnostic like Prisma: header, location, context line, caret underline", () => {
    expect(formatDiagnostic(d, source)).toBe(
      [
        `error[unknown-attribute]: Unknown attribute "@sortabel". Did you mean "@sortable"?`,
        ` --> spec.resource:3:16`,
        `  |`,
        `2 |   id    bigint @primary_key`,
        `3 |   title text   @sortabel`,
        `  |                ^^^^^^^^^`,
      ].join("\n"),
    );
  });

  it("adds ANSI colours only when asked", () => {
    expect(formatDiagnostic(d, source)).not.toContain("\x1b[");
    expect(formatDiagnostic(d, source, { color: true })).toContain("\x1b[31m");
  });

  it("widens the gutter for long line numbers and skips a blank context line", () => {
    const long = "\n".repeat(99) + "\ntable t { a int @x }\n";
    const [e] = parse(long, "f.resource").diagnostics;
    expect(formatDiagnostic(e!, long).split("\n")).toEqual([
      `error[unknown-attribute]: Unknown attribute "@x"`,
      `   --> f.resource:101:17`,
      `    |`,
      `101 | table t { a int @x }`,
      `    |                 ^^`,
    ]);
  });

  it("ends the list with a summary line", () => {
    const warning: Diagnostic = { ...d, severity: "warning", code: "w" };
    const text = formatDiagnostics([d, d, warning], source);
    expect(text.endsWith("\n\n2 errors, 1 warning")).toBe(true);
    expect(text.split("error[unknown-attribute]").length).toBe(3);
    expect(formatDiagnostics([], source)).toBe("no problems");
    expect(formatDiagnostics([warning], source).endsWith("1 warning")).toBe(true);
  });
});
