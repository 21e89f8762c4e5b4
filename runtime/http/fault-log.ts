/**
 * One log line per fault answered with a 5xx (docs/decisions/0912-fault-log.md): under an outage
 * a service answers thousands of 503s, and a stack trace for each buries
 * everything else. The trace is written only at the debug level
 * (docs/decisions/0912-fault-log.md).
 */
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { callerRequestId, REQUEST_ID_VARIABLE } from "./request-id.js";

/** What is known about one fault when it is logged. */
export interface FaultReport {
  /** HTTP status answered (500, 503, 504). */
  status: number;
  /** Problem kind answered, e.g. `database-unavailable`. */
  kind: string;
  /** The resource's collection path, e.g. `/films`. */
  resource: string;
  /** HTTP method of the request. */
  method: string;
  /** The request id: `X-Request-Id` when the client sent a usable one, else made here. */
  requestId: string;
  /** SQLSTATE or socket error code of the underlying error, when there is one. */
  code?: string;
  /** The underlying error (never sent to the client). */
  error: unknown;
}

/** Receives every fault answered with a 5xx. */
export type FaultLogger = (report: FaultReport) => void;

/**
 * The request's id: an id an earlier middleware stored (`c.get("requestId")`,
 * as `resc/ops` and Hono's `requestId` middleware do), else the caller's
 * usable `X-Request-Id` (the rule of runtime/http/request-id.ts), else a
 * new UUID.
 */
export function requestIdOf(c: Context): string {
  const stored: unknown = c.get(REQUEST_ID_VARIABLE as never);
  if (typeof stored === "string" && stored !== "") return stored;
  return callerRequestId(c) ?? randomUUID();
}

function codeOf(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The underlying error's one-line message, quoted, with line breaks folded. */
function messageOf(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return JSON.stringify(text.replace(/\s+/g, " ").slice(0, 300));
}

/**
 * Formats a report as one `key=value` line (logfmt), e.g.
 * `resc fault status=503 kind=database-unavailable resource=/films method=GET request_id=… code=57P01 message="…"`.
 */
export function formatFault(r: FaultReport): string {
  const code = r.code ?? codeOf(r.error);
  return (
    `resc fault status=${r.status} kind=${r.kind} resource=${r.resource} method=${r.method} ` +
    `request_id=${r.requestId}${code ? ` code=${code}` : ""} message=${messageOf(r.error)}`
  );
}

/**
 * The default logger: one line on stderr per fault; the stack trace as
 * well when `RESC_LOG_LEVEL=debug`.
 */
export const defaultFaultLogger: FaultLogger = (r) => {
  process.stderr.write(formatFault(r) + "\n");
  if (process.env.RESC_LOG_LEVEL === "debug" && r.error instanceof Error && r.error.stack) {
    process.stderr.write(r.error.stack + "\n");
  }
};
