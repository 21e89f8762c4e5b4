/** Helpers for the grammar tests: parse a snippet and insist it parsed cleanly. */
import { expect } from "vitest";
import { parse } from "../../grammar/index.js";
import type { ColumnDecl, Schema, TableDecl } from "../../language/ir.js";

/** Parses `text` and fails the test with the diagnostics when there are any. */
export function parseClean(text: string): Schema {
  const r = parse(text, "test.resource");
  expect(r.diagnostics.map((d) => `${d.span.line}:${d.span.column} ${d.code}: ${d.message}`)).toEqual([]);
  return r.schema;
}

/** The table named `name`; fails when absent. */
export function table(schema: Schema, name: string): TableDecl {
  const t = schema.tables.find((x) => x.name === name);
  expect(t, `table ${name}`).toBeDefined();
  return t!;
}

/** The column `name` of `t`; fails when absent. */
export function column(t: TableDecl, name: string): ColumnDecl {
  const c = t.columns.find((x) => x.name === name);
  expect(c, `column ${t.name}.${name}`).toBeDefined();
  return c!;
}

/** Wraps column lines in a table `t` so a test can focus on columns. */
export function inTable(body: string): string {
  return `table t {\n${body}\n}\n`;
}
