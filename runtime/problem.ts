/**
 * Problem documents (RFC 9457) and the error type that carries one through
 * the runtime. Wire shape decided in docs/http.md.
 */
import { brandClass } from "./brand.js";

/**
 * One problem of a request. `location` is `query.<param>`, `header.<name>`, `body`,
 * `body.<field>` or `path.id`; `allowed` lists valid alternatives where the
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
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/**
 * An error that becomes a problem document. Thrown inside the runtime,
 * caught by the HTTP layer; never carries SQL text or constraint names.
 */
export class ProblemError extends Error {
  readonly status: number;
  readonly kind: string;
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
  constructor(status: number, kind: string, detail: string, errors: ProblemItem[] = []) {
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
 * Builds a 400 from collected problems: the detail names the first problem
 * and how many more there are.
 */
export function badRequest(kind: string, errors: ProblemItem[]): ProblemError {
  const first = errors[0]?.detail ?? "the request is not valid";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? "s" : ""})` : "";
  return new ProblemError(400, kind, first + more, errors);
}
