/**
 * One slip, one error (docs/decisions/0130-one-slip-one-error.md,
 * 0230-rules-beside-syntax-errors.md): arguments left open are closed where
 * the next member plainly starts, and the validator's rules still run over
 * the declarations the slip did not touch.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileSource } from "../../compiler/index.js";

const errors = (text: string) =>
  compileSource(text, "t.resource")
    .diagnostics.filter((d) => d.severity === "error")
    .map((d) => ({
      code: d.code,
      line: d.span.line,
      column: d.span.column,
    }));

describe("an unclosed @default(now()", () => {
  it.each([
    ["before the next column", "  created_at timestamptz @default(now()\n  title text\n"],
    ["before the resource block", '  created_at timestamptz @default(now()\n  resource "/posts" { ops = [list] }\n'],
    ["before the closing brace", "  created_at timestamptz @default(now()\n"],
    ["before another attribute", "  created_at timestamptz @default(now() @read_only @sortable\n"],
    ["before another attribute, after a comma", "  created_at timestamptz @default(now(), @sortable\n  title text\n"],
    ["before a block attribute", "  created_at timestamptz @default(now()\n  @@index([created_at])\n"],
  ])("%s: exactly one error, at the open parenthesis", (_, body) => {
    const text = `table posts {\n  id bigint @primary_key @default(identity)\n${body}}\n`;
    expect(errors(text)).toEqual([{ code: "missing-paren", line: 3, column: 34 }]);
  });

  it("in the reference schema: one error", () => {
    const spec = readFileSync("spec.resource", "utf8");
    const broken = spec.replace("@default(now()) @read_only @sortable", "@default(now() @read_only @sortable");
    expect(broken).not.toBe(spec);
    expect(errors(broken).map((e) => e.code)).toEqual(["missing-paren"]);
  });

  it("keeps arguments that legitimately continue on the next line", () => {
    const text =
      "table a {\n  id bigint @primary_key\n  b_id bigint @ref(b,\n    b)\n}\ntable b {\n  id bigint @primary_key\n}\n";
    expect(errors(text)).toEqual([]);
  });
});

describe("rules beside a syntax error", () => {
  const text = [
    "table posts {",
    "  id         bigint      @primary_key @default(identity)",
    "  created_at timestamptz @default(now()",
    "}",
    "",
    "table other {",
    "  id   bigint @primary_key",
    "  tags text[] @sortable",
    "  post_id bigint @ref(post, posts)",
    '  resource "/other" { ops = [list] }',
    "}",
    "",
  ].join("\n");

  it("reports the syntax error and the rule broken in another table", () => {
    expect(errors(text).map((e) => e.code)).toEqual(["missing-paren", "array-sortable"]);
  });

  it("does not report names that a broken declaration may have provided", () => {
    const broken = text.replace("table posts {", "table posts {{");
    const codes = errors(broken).map((e) => e.code);
    expect(codes).toContain("array-sortable");
    expect(codes.filter((c) => c.startsWith("unknown-") || c.startsWith("ref-"))).toEqual([]);
  });
});

describe("access blocks beside a syntax error (docs/decisions/1367-access-rules.md)", () => {
  const text = [
    "auth {",
    "  roles = [member]",
    "  claim org uuid",
    "}",
    "",
    "table posts {",
    "  id         bigint      @primary_key @default(identity)",
    "  created_at timestamptz @default(now()",
    "}",
    "",
    "table notes {",
    "  id     bigint @primary_key",
    "  org_id uuid",
    '  resource "/notes" { ops = [list] }',
    "  access member { ops = [list], rows org_id = claim.team }",
    "}",
    "",
  ].join("\n");

  it("are checked against an intact auth block, never reported as without one", () => {
    expect(errors(text).map((e) => e.code)).toEqual(["missing-paren", "unknown-claim"]);
  });

  it("wait for a broken auth block", () => {
    const broken = text.replace("  roles = [member]", "  roles = [member");
    const codes = errors(broken).map((e) => e.code);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((c) => c.startsWith("access-") || c.startsWith("unknown-"))).toEqual([]);
  });
});
