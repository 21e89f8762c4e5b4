/**
 * Code frames for diagnostics, in the style users know from Prisma and
 * rustc (docs/language.md, Diagnostics):
 *
 *     error[unknown-attribute]: Unknown attribute "@sortabel". Did you mean "@sortable"?
 *       --> spec.resource:12:20
 *        |
 *     11 |   id    bigint @primary_key
 *     12 |   title text   @sortabel
 *        |                ^^^^^^^^^
 *
 * Plain text by default; `{ color: true }` adds ANSI colours.
 */
import type { Diagnostic } from "./ir.js";

/** Options of the formatters. */
export interface FormatOptions {
  /** Add ANSI colour escapes (red errors, yellow warnings, blue gutter). Default false. */
  color?: boolean;
}

const ANSI = { red: "\x1b[31m", yellow: "\x1b[33m", blue: "\x1b[34m", bold: "\x1b[1m", reset: "\x1b[0m" };

function paint(on: boolean, codes: string, s: string): string {
  return on ? `${codes}${s}${ANSI.reset}` : s;
}

/**
 * One diagnostic as a header line, a `-->` location line and a code frame:
 * the line before (when not blank), the offending line and a `^` underline
 * under the span (to the end of the line for a span over several lines; one
 * caret for an empty span). Tabs are kept so the underline lines up.
 */
export function formatDiagnostic(d: Diagnostic, source: string, options: FormatOptions = {}): string {
  const color = options.color === true;
  const lines = source.split("\n");
  const lineNo = Math.max(1, Math.min(d.span.line, lines.length));
  const current = (lines[lineNo - 1] ?? "").replace(/\r$/, "");
  const previous = lineNo > 1 ? (lines[lineNo - 2] ?? "").replace(/\r$/, "") : "";
  const width = String(lineNo).length;
  const gutter = (n?: number): string =>
    paint(color, ANSI.blue, `${n === undefined ? " ".repeat(width) : String(n).padStart(width)} |`);
  const tone = d.severity === "error" ? ANSI.red : ANSI.yellow;

  const start = Math.max(1, Math.min(d.span.column, current.length + 1));
  const end = d.span.endLine === d.span.line ? d.span.endColumn : current.length + 1;
  const count = Math.max(1, end - start);
  const lead = current.slice(0, start - 1).replace(/[^\t]/g, " ");
  const out = [
    paint(color, ANSI.bold + tone, `${d.severity}[${d.code}]`) + paint(color, ANSI.bold, `: ${d.message}`),
    `${" ".repeat(width)}${paint(color, ANSI.blue, "-->")} ${d.span.file}:${d.span.line}:${d.span.column}`,
    gutter(),
  ];
  if (previous.trim() !== "") out.push(`${gutter(lineNo - 1)} ${previous}`);
  out.push(`${gutter(lineNo)} ${current}`);
  out.push(`${gutter()} ${lead}${paint(color, tone, "^".repeat(count))}`);
  return out.join("\n");
}

/** `2 errors, 1 warning`; `no problems` when empty. */
export function summarize(ds: readonly Diagnostic[]): string {
  const errors = ds.filter((d) => d.severity === "error").length;
  const warnings = ds.length - errors;
  if (ds.length === 0) return "no problems";
  const parts: string[] = [];
  if (errors > 0) parts.push(`${errors} error${errors === 1 ? "" : "s"}`);
  if (warnings > 0) parts.push(`${warnings} warning${warnings === 1 ? "" : "s"}`);
  return parts.join(", ");
}

/** Every diagnostic as a code frame, separated by blank lines, then the summary line. */
export function formatDiagnostics(ds: readonly Diagnostic[], source: string, options: FormatOptions = {}): string {
  return [...ds.map((d) => formatDiagnostic(d, source, options)), summarize(ds)].join("\n\n");
}
