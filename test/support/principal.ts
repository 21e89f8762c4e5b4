/**
 * The principal a test names directly: a hand-written middleware that sets
 * it from an `x-principal` header (JSON), the stand-in for a session scheme
 * as `--middleware` may be one, and a principal of one role with `sub` and
 * `org` claims, the shape the access suites' schemas declare.
 */
import type { MiddlewareHandler } from "hono";
import { setPrincipal, type Principal } from "../../runtime/auth/principal.js";

/** Sets the principal the `x-principal` header holds as JSON; a request without it has none. */
export const principalFromHeader: MiddlewareHandler = async (c, next) => {
  const p = c.req.header("x-principal");
  if (p) setPrincipal(c, JSON.parse(p) as Principal);
  await next();
};

/** A principal of one role, its `sub` claim the subject (`<role>-<org>` unless given) and an `org` claim. */
export const who = (role: string, org: string, sub = `${role}-${org}`): Principal => ({
  subject: sub,
  roles: [role],
  claims: { sub, org },
});
