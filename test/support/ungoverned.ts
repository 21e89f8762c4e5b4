/**
 * The reference schema without its access model: `spec.resource` with its
 * `auth` block and every `access` block taken out
 * (docs/decisions/1367-access-rules.md). spec.resource is the repository's
 * richest schema, so tests of other things (hooks, the command tree, the
 * typed client, `resc dev`, idempotency scopes from hook data) serve it;
 * since it declares who may call it, each request would need a token. They
 * serve this text instead, confined by the x-org-id hooks module
 * (test/fixtures-hooks/tenant.ts) as before; test/tracker tests the
 * declared rules of the reference application itself.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { compileSource } from "../../compiler/index.js";
import { formatDiagnostics } from "../../grammar/index.js";
import type { Span } from "../../language/ir.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The reference schema's path. */
export const SPEC_FILE = path.join(ROOT, "spec.resource");

/** `lines` without the 1-based lines of `span`, nor the comment lines and one blank line just above it. */
function cut(lines: (string | undefined)[], span: Span): void {
  let first = span.line - 1;
  while (first > 0 && /^\s*\/\//.test(lines[first - 1] ?? "")) first--;
  if (first > 0 && lines[first - 1]?.trim() === "") first--;
  for (let i = first; i < span.endLine; i++) lines[i] = undefined;
}

/**
 * `text` with its `auth` block and its tables' `access` blocks removed (with
 * the comments just above each), the rest as written.
 * @throws Error when `text` does not compile, or what is left still has an auth or access block
 */
export function ungoverned(text: string, file = "spec.resource"): string {
  const r = compileSource(text, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, text));
  const lines: (string | undefined)[] = text.split("\n");
  const spans = [
    ...(r.schema.auth ? [r.schema.auth.span] : []),
    ...r.schema.tables.flatMap((t) => (t.access ?? []).map((a) => a.span)),
  ];
  for (const span of spans) cut(lines, span);
  const out = lines.filter((l): l is string => l !== undefined).join("\n");
  const again = compileSource(out, file);
  if (!again.ok) throw new Error(formatDiagnostics(again.diagnostics, out));
  if (again.schema.auth || again.schema.tables.some((t) => (t.access ?? []).length > 0))
    throw new Error(`${file} still declares access after removing its blocks`);
  return out;
}

/** spec.resource's text without its access model. */
export function ungovernedSpecText(): string {
  return ungoverned(readFileSync(SPEC_FILE, "utf8"));
}

/**
 * Writes spec.resource without its access model as `spec.resource` in `dir`
 * (its `generate` block and relative paths as in the repository's root).
 * @returns the written file's path
 */
export function writeUngovernedSpec(dir: string): string {
  const file = path.join(dir, "spec.resource");
  writeFileSync(file, ungovernedSpecText());
  return file;
}
