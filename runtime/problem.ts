/**
 * Problem documents (RFC 9457) and the error type that carries one through
 * the runtime. Wire shape decided in docs/http.md.
 */
import { brandClass } from "./brand.js";

/**
 * One problem of a request. `location` is `query.<param>`, `header.<name>`, `body`,
 * `body.<field>` or `path.id`, and for a request Node's HTTP parser refuses
 * (runtime/ops/client-errors.ts) `request-line`, `header` or `request`; `allowed` lists valid alternatives where the
 * spec asks for them (spec: Errors), sorted as the rule requires.
 */
export interface ProblemItem {
  location: string;
  detail: string;
  value?: string;
  allowed?: string[];
}

/**
 * The response body of every refusal, served as `application/problem+json`.
 * `type` is a stable URI naming the kind of problem (`about:blank` style
 * relative URIs under `/problems/`).
 */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors: ProblemItem[];
}

/** Titles for the statuses the runtime answers with. */
const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  412: "Precondition Failed",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/**
 * Every kind of problem resc itself answers with, and its status: the
 * `type` of the document is `/problems/<kind>` (docs/http.md, "Problem
 * documents"). An application's hooks may use kinds of their own; the
 * runtime builds its problems only through {@link problem}, so a kind it
 * spells is one of these.
 */
export const PROBLEM_KINDS = {
  "invalid-query": 400,
  "invalid-body": 400,
  "invalid-id": 400,
  "invalid-value": 400,
  "too-complex": 400,
  "invalid-header": 400,
  "max-affected": 400,
  "malformed-request": 400,
  unauthorized: 401,
  forbidden: 403,
  "not-found": 404,
  "request-timeout": 408,
  conflict: 409,
  "still-referenced": 409,
  "request-in-flight": 409,
  "precondition-failed": 412,
  "body-too-large": 413,
  "unsupported-media-type": 415,
  "invalid-row": 422,
  "idempotency-key-reused": 422,
  "subscription-failed": 422,
  "check-violation": 422,
  "not-null-violation": 422,
  "reference-violation": 422,
  "header-too-large": 431,
  internal: 500,
  "outcome-unknown": 500,
  "hook-misconfigured": 500,
  "not-implemented": 501,
  "database-unavailable": 503,
  "database-busy": 503,
  "keys-unavailable": 503,
  "lock-timeout": 503,
  "resource-busy": 503,
  retry: 503,
  starting: 503,
  "statement-timeout": 504,
} as const satisfies Record<string, number>;

/** A kind of problem resc answers with (a key of {@link PROBLEM_KINDS}). */
export type ProblemKind = keyof typeof PROBLEM_KINDS;

/**
 * An error that becomes a problem document. Thrown inside the runtime,
 * caught by the HTTP layer; never carries SQL text or constraint names.
 */
export class ProblemError extends Error {
  readonly status: number;
  /** One of {@link PROBLEM_KINDS} when resc made it; an application's hooks may use kinds of their own. */
  readonly kind: ProblemKind | (string & {});
  readonly errors: ProblemItem[];
  /**
   * Seconds a client should wait before trying again, sent as
   * `Retry-After` (RFC 9110 §10.2.3); set on every 503
   * (docs/decisions/0910-connection-faults.md).
   */
  retryAfterSeconds?: number;

  /**
   * @param status HTTP status (400, 404, 409, 422, 503, …)
   * @param kind short slug for the `type` URI, e.g. `invalid-query`
   * @param detail human sentence summarizing the problems
   * @param errors every problem found, reported at once
   */
  constructor(status: number, kind: ProblemKind | (string & {}), detail: string, errors: ProblemItem[] = []) {
    super(detail);
    this.name = "ProblemError";
    this.status = status;
    this.kind = kind;
    this.errors = errors;
  }

  /** The RFC 9457 body for this error. */
  toDocument(): ProblemDocument {
    return {
      type: `/problems/${this.kind}`,
      title: TITLES[this.status] ?? "Error",
      status: this.status,
      detail: this.message,
      errors: this.errors,
    };
  }
}

// A hooks module may throw the ProblemError of its own copy of the runtime (runtime/brand.ts, decision 1325).
brandClass(ProblemError, "resc.ProblemError");

/**
 * A problem of resc's own: its status is the kind's ({@link PROBLEM_KINDS}).
 * @param detail human sentence summarizing the problems
 * @param errors every problem found, reported at once
 */
export function problem(kind: ProblemKind, detail: string, errors: ProblemItem[] = []): ProblemError {
  return new ProblemError(PROBLEM_KINDS[kind], kind, detail, errors);
}

/** True when `e` is a problem of one of `kinds`. */
export function isProblem(e: unknown, ...kinds: ProblemKind[]): e is ProblemError {
  return e instanceof ProblemError && (kinds as string[]).includes(e.kind);
}

/**
 * A problem of kind `kind` (its status is the kind's) from collected
 * problems: the detail names the first problem and how many more there are.
 * The name is historical: a 422 `invalid-row` is built the same way.
 */
export function badRequest(kind: ProblemKind, errors: ProblemItem[]): ProblemError {
  const first = errors[0]?.detail ?? "the request is not valid";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  return problem(kind, first + more, errors);
}
