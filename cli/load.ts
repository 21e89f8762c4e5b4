/**
 * Reads and compiles a schema file for a command, printing every diagnostic
 * with its code frame on stderr (Prisma style). Shared by every command that
 * takes a FILE.
 */
import { readFile } from "node:fs/promises";
import { compileSource } from "../compiler/compile.js";
import { formatDiagnostics } from "../grammar/index.js";
import type { Diagnostic, Schema } from "../language/ir.js";
import { shownPath } from "./shown-path.js";

/** A compiled schema, or the reason there is none. */
export type LoadResult =
  { ok: true; schema: Schema; source: string; warnings: number } | { ok: false; message: string };

/**
 * Compiles `file`. Diagnostics (errors and lint warnings) are written to
 * `stderr`; the result is `ok: false` when the file cannot be read or has an
 * error.
 */
export async function loadSchema(file: string, stderr: (s: string) => void): Promise<LoadResult> {
  let source: string;
  try {
    source = await readFile(file, "utf8");
  } catch (e) {
    return { ok: false, message: `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}` };
  }
  return compileLoaded(file, source, stderr);
}

/**
 * Compiles the already read `source` of `file`, as {@link loadSchema} does
 * after reading it (the compiled-schema cache reads the file itself, to
 * key its entry by the text). Diagnostics are written to `stderr` once,
 * with their code frames; or, when `record` is given, handed to it one by
 * one instead (`resc serve` logs each as one JSON line).
 */
export function compileLoaded(
  file: string,
  source: string,
  stderr: (s: string) => void,
  record?: (d: Diagnostic) => void,
): LoadResult {
  const shown = shownPath(file);
  const result = compileSource(source, shown);
  if (record) result.diagnostics.forEach(record);
  else if (result.diagnostics.length > 0) stderr(formatDiagnostics(result.diagnostics, source) + "\n");
  if (!result.ok) {
    const n = result.diagnostics.filter((d) => d.severity === "error").length;
    return { ok: false, message: `${shown}: ${n} error${n === 1 ? "" : "s"}` };
  }
  const warnings = result.diagnostics.filter((d) => d.severity === "warning").length;
  return { ok: true, schema: result.schema, source, warnings };
}
