/**
 * Between the compiler's spans (1-based lines and columns, exclusive end,
 * UTF-16 code units: docs/decisions/0100-span-end-is-exclusive.md) and LSP
 * ranges (0-based, exclusive end, UTF-16 by default).
 */
import { DiagnosticSeverity, type Diagnostic as LspDiagnostic, type Range } from "vscode-languageserver";
import type { Diagnostic, Span } from "../../language/ir.js";

/** The LSP range of a span. */
export function toRange(s: Span): Range {
  return {
    start: { line: s.line - 1, character: s.column - 1 },
    end: { line: s.endLine - 1, character: s.endColumn - 1 },
  };
}

/** A compiler diagnostic as the LSP publishes it (code kept, source `resc`). */
export function toLspDiagnostic(d: Diagnostic): LspDiagnostic {
  return {
    range: toRange(d.span),
    severity: d.severity === "error" ? DiagnosticSeverity.Error : DiagnosticSeverity.Warning,
    code: d.code,
    source: "resc",
    message: d.message,
  };
}
