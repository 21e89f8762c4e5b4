/**
 * Generated TypeScript is printed in prettier's final form without running
 * prettier (decisions 1321 and 1327): the client's methods, item
 * types and constants are laid out by the document printer, whose breaks
 * depend on the width of a table's names. Prettier, run over the output for
 * table names of every length from 1 to 60 characters and every shape of
 * resource, must find nothing to change; and for names of any of those lengths
 * the formatter must not even be loaded.
 */
import { describe, expect, it, vi } from "vitest";
import { compileSource, emitClient, emitCommandTree, emitHono } from "../../compiler/index.js";
import { finalForm, finalFormPieces } from "../../compiler/backends/final-form.js";

// Counts how often generation falls back to prettier; the checks below format with the real one.
const calls = vi.hoisted(() => ({ format: 0 }));
vi.mock("prettier", async (importOriginal) => {
  const real = await importOriginal<typeof import("prettier")>();
  return {
    ...real,
    format: (text: string, options: import("prettier").Options) => {
      calls.format++;
      return real.format(text, options);
    },
  };
});

/** A table name of `length` characters, in words as schemas spell them (`ab_cdefg_h…`). */
function tableName(length: number, salt: string): string {
  let name = salt;
  for (let i = 0; name.length < length; i++) name += i % 6 === 5 ? "_" : "abcdefghij"[(i + length) % 10];
  return name.slice(0, length).replace(/_$/, "x");
}

/**
 * Four tables per length: expandable both ways with every operation, plain
 * with every operation, list and create with a composite key, and item
 * operations only with an expandable reference.
 */
function schemaOfLength(length: number): string {
  const a = tableName(length, "a");
  const b = tableName(length, "b");
  const c = tableName(length, "c");
  const d = tableName(length, "d");
  return `api {\n  title = "Widths"\n  version = "1.0.0"\n}\n
table ${a} {
  id       bigint  @primary_key @default(identity) @sortable
  parent   bigint? @ref(up, ${a}, expandable) @inverse(down, expandable) @filterable
  labels   text[]  @default("{}") @filterable
  attrs    jsonb?  @filterable
  due_on   date?   @filterable @sortable
  at_time  timestamptz? @filterable
  @@index([parent])
  @@index([labels], using: gin)
  @@index([attrs], using: gin)
  resource "/${a}" {\n    ops = [crud, list]\n  }
}

table ${b} {
  id    uuid @primary_key @default(gen_random_uuid())
  name  text @filterable @sortable @searchable
  resource "/${b}" {\n    ops = [crud, list]\n  }
}

table ${c} {
  x  integer
  y  integer
  n  text @filterable
  @@primary_key([x, y])
  resource "/${c}" {\n    ops = [list, create]\n  }
}

table ${d} {
  id     integer @primary_key
  owner_id bigint @ref(owner, ${a}, expandable)
  @@index([owner_id])
  resource "/${d}" {\n    ops = [read, update, delete]\n  }
}
`;
}

async function emitAll(source: string) {
  const r = compileSource(source, "widths.resource");
  if (!r.ok) throw new Error(`the schema does not compile: ${JSON.stringify(r.diagnostics.slice(0, 2))}`);
  return [
    ...(await emitHono(r.schema)),
    ...(await emitClient(r.schema, "client")),
    ...(await emitCommandTree(r.schema, "commands", { cliName: "w", clientDir: "client" })),
  ];
}

describe("generated code is in final form for names of every width", () => {
  it.each(Array.from({ length: 60 }, (_, i) => i + 1))("table names of %i characters", async (length) => {
    const { format } = await vi.importActual<typeof import("prettier")>("prettier");
    for (const f of await emitAll(schemaOfLength(length))) {
      if (!f.path.endsWith(".ts")) continue;
      expect(await format(f.contents, { parser: "typescript" }), `${f.path} at ${length}`).toBe(f.contents);
    }
  });

  it("imports from types.ts exactly the types the client's classes name", async () => {
    for (const length of [1, 4, 8, 12, 16, 20, 24, 32, 40, 48, 60]) {
      const files = await emitAll(schemaOfLength(length));
      const index = files.find((f) => f.path === "client/index.ts")?.contents ?? "";
      const match = /import type \{([^}]*)\} from "\.\/types\.js";/.exec(index);
      const imported = (match?.[1] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
        .sort();
      const body = index.slice((match?.index ?? 0) + (match?.[0].length ?? 0));
      const suffixes = "Row|Create|Update|Column|Key|Id|Relation|Expansions|ListQuery|ReadQuery";
      const named = [...new Set(body.match(new RegExp(`\\b[A-Z]\\w*?(?:${suffixes})\\b`, "g")))].sort();
      expect(imported, `at ${length}`).toEqual(named);
    }
  });

  it("does not load the formatter for names of any length up to 60", async () => {
    calls.format = 0;
    for (const length of [1, 4, 8, 12, 16, 20, 24, 32, 40, 48, 60]) await emitAll(schemaOfLength(length));
    expect(calls.format).toBe(0);
  });
});

describe("finalForm sends to prettier only what it cannot settle", () => {
  const long = `export const ${"x".repeat(40)} = someFunction(${"argument".repeat(6)}, another);`;

  it("formats the one overlong statement and settles the others", async () => {
    const { format } = await vi.importActual<typeof import("prettier")>("prettier");
    const text = `export interface A {\nb: string;\n}\n\n${long}\n\nexport type C = "c";\n`;
    calls.format = 0;
    const out = await finalForm(text);
    expect(out).toBe(await format(text, { parser: "typescript" }));
    expect(calls.format).toBe(1);
  });

  it("formats a piece marked for the formatter and keeps a final piece as it is", async () => {
    const { format } = await vi.importActual<typeof import("prettier")>("prettier");
    const out = await finalFormPieces([
      { text: "const a = 1;", form: "final" },
      { text: long, form: "format" },
    ]);
    expect(out).toBe(`const a = 1;\n\n${await format(long, { parser: "typescript" })}`);
  });

  it("formats the whole text when a statement cannot stand alone", async () => {
    const { format } = await vi.importActual<typeof import("prettier")>("prettier");
    // A template literal spanning a blank line cuts the text where no statement ends.
    const text = `export const t = \`one\n\ntwo\`;\nexport const ${"y".repeat(70)} = 1;\n`;
    expect(await finalForm(text)).toBe(await format(text, { parser: "typescript" }));
  });
});
