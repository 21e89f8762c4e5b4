/**
 * The principal: who is asking (docs/decisions/1367-access-rules.md). The
 * built-in bearer verification (runtime/auth/middleware.ts) or a
 * hand-written `--middleware` sets it on the request; hooks receive it as
 * `ctx.principal`, the access rules are judged against it, the request log
 * names its subject and idempotency keys are scoped by it.
 */
import type { Context } from "hono";
import type { JsonValue } from "../predicate.js";

/** The verified caller of one request, or the anonymous role. */
export interface Principal {
  /** The `sub` claim; empty for the anonymous role. */
  subject: string;
  /** The roles it acts with, each one the schema declares; never empty. */
  roles: readonly string[];
  /**
   * The claims the schema names, by name, decoded for their declared type (a uuid
   * as its text, a bigint as its decimal text, an array as an array); an optional
   * claim the token lacks is null. `sub` is always present.
   */
  claims: Readonly<Record<string, JsonValue>>;
  /**
   * When the token it came from expires: its `exp`, in seconds since the epoch. Absent for the anonymous
   * role and a principal a middleware set without one. The change feed ends a stream then (past the clock
   * tolerance) with `reconnect`, so a client resumes with a fresh token (docs/decisions/1367-access-rules.md).
   */
  expiresAt?: number;
  /** True for a request without a token that the anonymous role admitted. */
  anonymous?: true;
}

/** The Hono context variable holding the request's principal. */
const PRINCIPAL_KEY = "resc.principal";

/**
 * Sets the principal of a request, from the built-in verification or a
 * hand-written middleware (sessions, API keys): the built-in verification
 * leaves a request that already has one be.
 */
export function setPrincipal(c: Context, principal: Principal): void {
  c.set(PRINCIPAL_KEY as never, principal as never);
}

/** The principal of a request, or undefined when nothing set one. */
export function principalOf(c: Context): Principal | undefined {
  const p: unknown = c.get(PRINCIPAL_KEY as never);
  return typeof p === "object" && p !== null && Array.isArray((p as Principal).roles) ? (p as Principal) : undefined;
}

/** The Hono context variable holding the bearer challenge a 401 of this request sends. */
const CHALLENGE_KEY = "resc.challenge";

/**
 * Records the `WWW-Authenticate` challenge (`Bearer realm="…"`) the built-in
 * verification would send, for a 401 answered later in the request: the
 * anonymous role not granted an operation (docs/decisions/1367-access-rules.md)
 * is refused with the same challenge as a request the middleware refused.
 */
export function setChallenge(c: Context, challenge: string): void {
  c.set(CHALLENGE_KEY as never, challenge as never);
}

/** The challenge {@link setChallenge} recorded for the request, or undefined. */
export function challengeOf(c: Context): string | undefined {
  const v: unknown = c.get(CHALLENGE_KEY as never);
  return typeof v === "string" ? v : undefined;
}
