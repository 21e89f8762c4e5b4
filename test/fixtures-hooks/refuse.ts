/**
 * A hooks module for `resc serve --hooks` that refuses to list `pins` for a
 * request carrying `x-deny`, with a ProblemError imported the way an
 * application imports it (`resc/runtime`, the package's compiled runtime),
 * not the copy bundled into the `resc` command (decision 1325).
 */
import type { Context } from "hono";
import { ProblemError, type Hooks } from "resc/runtime";

/** Each request's hook data: whether it asked to be refused. */
export function hookData(c: Context): { deny: boolean } {
  return { deny: c.req.header("x-deny") !== undefined };
}

export const hooks: Hooks = {
  beforeQuery: {
    pins: (ctx) => {
      if (ctx.data?.deny) throw new ProblemError(403, "forbidden", "This request may not read pins.");
      return undefined;
    },
  },
};
