/**
 * Test helpers for the compiler: parse a schema text (failing the test on a
 * syntax error, so validator tests never run on a half-built IR), validate
 * it, and find where a piece of text sits, so position assertions follow
 * the source instead of hard-coded numbers.
 */
import { expect } from "vitest";
import { parse } from "../../grammar/index.js";
import type { Diagnostic, Schema } from "../../language/ir.js";
import { validate } from "../../compiler/validate/index.js";

/** Parses `src`; fails the calling test when the parser reports an error. */
export function parseOk(src: string, file = "test.resource"): Schema {
  const r = parse(src, file);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  expect(errors.map((d) => `${d.code}: ${d.message}`)).toEqual([]);
  return r.schema;
}

/** The validator's diagnostics for `src`. */
export function check(src: string): Diagnostic[] {
  return validate(parseOk(src));
}

/** The diagnostics with `code`. */
export function withCode(ds: readonly Diagnostic[], code: string): Diagnostic[] {
  return ds.filter((d) => d.code === code);
}

/** 1-based line and column of the `nth` (1-based) occurrence of `needle` in `src`. */
export function locate(src: string, needle: string, nth = 1): { line: number; column: number } {
  let at = -1;
  for (let i = 0; i < nth; i++) {
    at = src.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${JSON.stringify(needle)} occurs fewer than ${nth} times`);
  }
  const before = src.slice(0, at).split("\n");
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

/**
 * Asserts that `ds` holds exactly one diagnostic with `code`, with the given
 * severity and message, starting where the `nth` `needle` starts in `src`.
 */
export function expectOne(
  ds: readonly Diagnostic[],
  src: string,
  code: string,
  expected: { message: string; at: string; nth?: number; severity?: "error" | "warning" },
): void {
  const found = withCode(ds, code);
  expect(found.map((d) => d.message)).toEqual([expected.message]);
  const d = found[0];
  expect(d.severity).toBe(expected.severity ?? "error");
  expect({ line: d.span.line, column: d.span.column }).toEqual(locate(src, expected.at, expected.nth));
}
