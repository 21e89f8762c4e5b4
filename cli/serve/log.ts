/**
 * `resc serve`'s logs: every line it prints, on stdout and stderr, is one
 * JSON object (pino), so a log collector never meets a code frame or a
 * bare `Error:` line (docs/deploy.md, "Logs"). Requests and the service's
 * life go to stdout; the schema's diagnostics and a failed start go to
 * stderr, written synchronously so a line is out before the process exits.
 */
import pino, { type Logger } from "pino";
import type { Diagnostic } from "../../language/ir.js";

/** The two loggers of one `resc serve` process. */
export interface ServeLoggers {
  /** Requests, start, drain and stop (what `withOperations` logs). */
  out: Logger;
  /** Diagnostics and start-up failures. */
  err: Logger;
}

/** Both loggers at pino level `level`, each line carrying the process id (and `role`, for a cluster's primary). */
export function serveLoggers(level: string, role?: "primary"): ServeLoggers {
  const base = { pid: process.pid, ...(role ? { role } : {}) };
  return {
    out: pino({ level, base }),
    err: pino({ level, base }, pino.destination({ fd: 2, sync: true })),
  };
}

/** Logs one schema diagnostic: its text as `msg`, where it is as `file`, `line`, `column`, and its `code`. */
export function logDiagnostic(log: Logger, d: Diagnostic): void {
  const fields = { file: d.span.file, line: d.span.line, column: d.span.column, code: d.code };
  if (d.severity === "error") log.error(fields, d.message);
  else log.warn(fields, d.message);
}
