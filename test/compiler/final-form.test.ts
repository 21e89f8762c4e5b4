/**
 * Generated TypeScript is printed in prettier's final form without running
 * prettier (issue #13; decisions 1321 and 1327): the client's methods, item
 * types and constants are laid out by the document printer, whose breaks
 * depend on the width of a table's names. Prettier, run over the output for
 * table names of every length from 1 to 60 characters and every shape of
 * resource, must find nothing to change; and for names of ordinary length
 * the formatter must not even be loaded.
 */
import { describe, expect, it, vi } from "vitest";
import { compileSource, emitClient, emitCommandTree, emitHono } from "../../compiler/index.js";

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

/** Three tables per length: expandable both ways with every operation, plain with every operation, list-only with a composite key. */
function schemaOfLength(length: number): string {
  const a = tableName(length, "a");
  const b = tableName(length, "b");
  const c = tableName(length, "c");
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

  it("does not load the formatter for names of ordinary length", async () => {
    calls.format = 0;
    for (const length of [1, 4, 8, 12, 16, 20, 24]) await emitAll(schemaOfLength(length));
    expect(calls.format).toBe(0);
  });
});
