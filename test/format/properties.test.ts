/**
 * The formatter is idempotent and preserves meaning (docs/decisions/1100-formatter-layout.md): over every
 * `.resource` fixture that parses, and over random schemas written with
 * random spacing, commas, line breaks and comments (fast-check).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatSource } from "../../grammar/format/index.js";
import { parse } from "../../grammar/index.js";
import { sameSchema } from "../../grammar/format/same-schema.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

function resourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === "expected" ? [] : resourceFiles(full);
    return name.endsWith(".resource") ? [full] : [];
  });
}

const FIXTURES = [path.join(ROOT, "spec.resource"), ...resourceFiles(path.join(ROOT, "fixtures"))];

/** The comment texts of a file, sorted (members may move, comments never vanish). */
function comments(text: string): string[] {
  const out: string[] = [];
  const re = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\n]|'')*'|(\/\/[^\n]*|\/\*[\s\S]*?\*\/)/g;
  for (const m of text.matchAll(re)) if (m[1] !== undefined) out.push(m[1].trimEnd());
  return out.sort();
}

function expectEquivalentAndStable(text: string, file: string): string {
  const once = formatSource(text, file);
  if (!once.ok) throw new Error(`${file} refused: ${once.diagnostics.map((d) => d.message).join("; ")}\n${text}`);
  expect(
    sameSchema(parse(text, file).schema, parse(once.text, file).schema),
    `${file}\n${text}\n---\n${once.text}`,
  ).toBe(true);
  expect(comments(once.text)).toEqual(comments(text));
  const twice = formatSource(once.text, file);
  expect(twice.ok && twice.text, `not idempotent:\n${once.text}`).toBe(once.text);
  return once.text;
}

describe("every fixture that parses", () => {
  const parsing = FIXTURES.filter((f) => formatSource(readFileSync(f, "utf8"), f).ok);

  it("includes the real schemas", () => {
    expect(parsing).toContain(path.join(ROOT, "spec.resource"));
    expect(parsing).toContain(path.join(ROOT, "fixtures/pagila/pagila.resource"));
    expect(parsing.length).toBeGreaterThan(20);
  });

  it.each(parsing.map((f) => [path.relative(ROOT, f), f]))("%s: same schema, same comments, idempotent", (_, f) => {
    expectEquivalentAndStable(readFileSync(f, "utf8"), f);
  });

  it("refuses exactly the fixtures with syntax errors", () => {
    const refused = FIXTURES.filter((f) => !parsing.includes(f)).map((f) => path.relative(ROOT, f));
    expect(refused.length).toBeGreaterThan(0);
    for (const f of refused) expect(f).toMatch(/^fixtures\/parse-errors\//);
  });
});

// ---- random schemas -------------------------------------------------------

/** Separators that keep everything on one line. */
const INLINE = [" ", "  ", " /* b */ ", "\t"];
/** Separators that may break lines or carry any kind of comment. */
const ANY = [...INLINE, "\n", "\n    ", "\n\n", " // line\n", "\n// own\n", "\n/// doc\n", "\n\n/* own\n  block */\n"];

const inline = fc.constantFrom(...INLINE);
const any = fc.constantFrom(...ANY);

const NAMES = ["id", "name", "title", "position", "resource", "label", "created_at", "org_id", "x1", "security"];
const name = fc.constantFrom(...NAMES);
const TYPES = [
  "int",
  "text",
  "bigint",
  "numeric(6,2)",
  "text[]",
  "double precision",
  "timestamptz",
  "varchar(20)",
  "jsonb",
  "status",
];
const ATTRIBUTES = [
  "@primary_key",
  "@filterable",
  "@sortable",
  "@sortable(nulls: last)",
  "@searchable",
  "@default(0)",
  "@default(now())",
  '@default("x")',
  '@check("x > 0")',
  "@ref(r, other, expandable)",
  "@inverse(inv, expandable, order: [a, -b], limit: 5)",
  "@hidden",
  "@unique",
];

/** A list or argument list with random separators: commas wherever a line may break (a new line must not start with two names). */
function items(open: string, parts: string[], close: string, seps: string[]): string {
  let out = open + (seps[0] ?? "");
  parts.forEach((p, i) => {
    out += p;
    if (i < parts.length - 1) {
      const s = seps[i + 1] ?? " ";
      out += s.trim() === "" && !s.includes("\n") ? s : `,${s}`;
    }
  });
  return out + (seps[parts.length] ?? "") + close;
}

const attribute = fc
  .tuple(fc.constantFrom(...ATTRIBUTES), fc.array(inline, { minLength: 8, maxLength: 8 }))
  .map(([a, seps]) => {
    const m = /^(@\w+)\((.*)\)$/.exec(a);
    if (!m) return a;
    const parts = m[2]!.split(", ");
    return m[1] + items("(", parts, ")", seps);
  });

const column = fc
  .tuple(
    name,
    any,
    fc.constantFrom(...TYPES),
    fc.boolean(),
    fc.uniqueArray(attribute, { maxLength: 4, selector: (a) => a.split("(")[0] }),
    fc.array(any, { minLength: 5, maxLength: 5 }),
  )
  .map(([n, s0, t, nullable, attrs, seps]) => {
    let out = `${n}${s0}${t}${nullable ? "?" : ""}`;
    attrs.forEach((a, i) => (out += seps[i]! + a));
    return out;
  });

const tableAttribute = fc.constantFrom(
  "@@index([a, b])",
  "@@index([labels], using: gin)",
  "@@unique([a])",
  "@@scoped",
  "@@primary_key([a, b])",
);

const setting = fc
  .tuple(fc.constantFrom("ops", "default_sort", "max_page_size", "security", "computed"), inline, any)
  .map(([k, s1, s2]) => {
    const value = {
      ops: "[crud, list]",
      default_sort: "[-a, b]",
      max_page_size: "50",
      security: "[bearerAuth]",
      computed: "[summary]",
    }[k]!;
    return `${k}${s1}=${s2}${value}`;
  });

const settingsBlock = fc
  .tuple(
    fc.uniqueArray(setting, { maxLength: 4, selector: (s) => s.split(/\s|=/)[0] }),
    fc.array(any, { minLength: 6, maxLength: 6 }),
    fc.boolean(),
  )
  .map(([ss, seps, commas]) => {
    let out = `{${seps[0]}`;
    ss.forEach((s, i) => (out += s + (commas ? "," : "") + seps[i + 1]!));
    return out + "}";
  });

const table = fc
  .tuple(
    fc.constantFrom("t", "tasks", "users"),
    fc.array(column, { minLength: 1, maxLength: 6 }),
    fc.array(tableAttribute, { maxLength: 3 }),
    fc.option(settingsBlock, { nil: undefined }),
    fc.array(any, { minLength: 12, maxLength: 12 }),
    fc.boolean(),
  )
  .chain(([n, cols, attrs, res, seps, commas]) => {
    const members = [...cols, ...attrs, ...(res !== undefined ? [`resource "/${n}" ${res}`] : [])];
    return fc.shuffledSubarray(members, { minLength: members.length, maxLength: members.length }).map((order) => {
      let out = `table ${n} {${seps[0]}`;
      order.forEach(
        (m, i) => (out += m + (commas ? "," : "") + (seps[(i % 11) + 1]!.includes("\n") ? seps[(i % 11) + 1]! : "\n")),
      );
      return out + "}";
    });
  });

const enumDecl = fc
  .tuple(
    fc.uniqueArray(fc.constantFrom("todo", "doing", "done", '"PG-13"', "api", "table"), { minLength: 1, maxLength: 5 }),
    fc.array(any, { minLength: 6, maxLength: 6 }),
  )
  .map(([vs, seps]) => {
    let out = `enum status {${seps[0]}`;
    vs.forEach((v, i) => (out += v + seps[i + 1]!));
    return out + "}";
  });

const domainDecl = fc
  .tuple(inline, fc.boolean())
  .map(([s, check]) => `domain year${s}integer${check ? ' @check("VALUE > 1900")' : ""}`);
const generateDecl = settingsBlock.map(
  (b) => `generate ${b.replace(/\b(ops|default_sort|max_page_size|security|computed)\b/g, "dir")}`,
);
const apiDecl = fc
  .tuple(any, any)
  .map(([a, b]) => `api {${a}title = "T"${b}security bearerAuth { scheme = "bearer" }\n}`);

const schema = fc
  .tuple(
    fc.array(fc.oneof(table, enumDecl, domainDecl, apiDecl, generateDecl), { minLength: 1, maxLength: 5 }),
    fc.array(any, { minLength: 6, maxLength: 6 }),
  )
  .map(
    ([decls, seps]) =>
      seps[0]!.trimStart() + decls.map((d, i) => d + (seps[i + 1]!.includes("\n") ? seps[i + 1]! : "\n")).join(""),
  );

describe("random schemas", () => {
  it("format to the same schema and comments, and formatting twice changes nothing", () => {
    fc.assert(
      fc.property(schema, (text) => {
        expectEquivalentAndStable(text, "random.resource");
      }),
      {
        numRuns: Number(process.env.FMT_RUNS ?? 400),
        seed: process.env.FMT_SEED ? Number(process.env.FMT_SEED) : 20260511,
      },
    );
  });
});
