/**
 * The collector of one request's problems. Every decoder adds to it and
 * keeps going, so a refusal lists EVERY problem of the request at once
 * rather than only the first (spec: Errors; a client fixes a request in one
 * round trip).
 */
import { badRequest, type ProblemItem, type ProblemKind } from "../problem.js";

/** Longest `value` echoed back in a problem item, in UTF-16 code units. */
const ECHO_LIMIT = 256;

/**
 * The offending text as echoed in a problem item: cut to a readable length,
 * so a huge body field is not sent back whole. `undefined` (no JSON form)
 * becomes its `String` spelling. A value nested deeper than the stack can
 * walk (JSON.stringify and String both recurse) is echoed as `[…]` or
 * `{…}`, so a hostile body is refused with a 400 rather than crashing the
 * handler (docs/http.md, test/faults/limits.test.ts).
 */
export function echoValue(v: unknown): string {
  let text: string;
  try {
    text = typeof v === "string" ? v : (JSON.stringify(v) ?? String(v));
  } catch {
    text = Array.isArray(v) ? "[…]" : typeof v === "object" && v !== null ? "{…}" : "…";
  }
  return text.length > ECHO_LIMIT ? text.slice(0, ECHO_LIMIT) + "…" : text;
}

/** Extra fields of a problem item: the offending text and the valid alternatives. */
export interface ProblemExtras {
  /** The offending text or JSON value as the client sent it (echoed through {@link echoValue}). */
  value?: unknown;
  /** Valid alternatives, already in the order the rule requires (spec: Errors). */
  allowed?: readonly string[];
}

/** Problems found so far in one request, in the order they were found. */
export class ProblemList {
  readonly items: ProblemItem[] = [];

  /**
   * Records one problem.
   * @param location `query.<param>`, `body`, `body.<field>` or `path.id`
   * @param detail one human sentence; never SQL text
   */
  add(location: string, detail: string, extras: ProblemExtras = {}): void {
    const item: ProblemItem = { location, detail };
    if (extras.value !== undefined) item.value = echoValue(extras.value);
    if (extras.allowed !== undefined) item.allowed = [...extras.allowed];
    this.items.push(item);
  }

  /** True when nothing was recorded. */
  get empty(): boolean {
    return this.items.length === 0;
  }

  /**
   * Throws a 400 `ProblemError` carrying every recorded problem; returns
   * normally when there is none.
   * @param kind the problem `type` slug, e.g. `invalid-query`
   */
  throwIfAny(kind: ProblemKind): void {
    if (this.items.length > 0) throw badRequest(kind, this.items);
  }
}
