/**
 * Hooks of examples/hooks/schema.resource (docs/hooks.md). The caller's team
 * comes from the `x-team` request header: a stand-in for what an
 * authentication middleware would put in the request.
 *
 *   npx resc dev examples/hooks/schema.resource --hooks examples/hooks/hooks.ts
 */
import type { Context } from "hono";
import { and, cmp, type Hooks } from "resc/runtime";

/** Each request's hook data: the team it acts for. */
export function hookData(c: Context): { team: string } {
  return { team: c.req.header("x-team") ?? "red" };
}

const teamOf = (data: Readonly<Record<string, unknown>> | undefined): string => String(data?.team ?? "red");

export const hooks: Hooks = {
  beforeQuery: {
    // Every read, update and delete sees the caller's team only, and never a removed note.
    notes: (ctx) => and(cmp("team", "eq", teamOf(ctx.data)), cmp("deleted_at", "isnull")),
  },
  beforeCreate: {
    // `team` is read-only: the body cannot set it, the hook stamps it.
    notes: (ctx, values) => ({ ...values, team: teamOf(ctx.data) }),
  },
  validateCreate: {
    // A rule the schema cannot state: a due date is not in the past.
    notes: (_ctx, values) => {
      const due = values.due_on;
      if (typeof due === "string" && due < new Date().toISOString().slice(0, 10)) {
        return [{ location: "body.due_on", detail: "a due date cannot be in the past" }];
      }
      return [];
    },
  },
  afterCommit: {
    // Runs once the write is committed; a failure here is logged, the response stays a success.
    notes: (ctx, event) => {
      console.log(
        `note ${String(event.key)} ${event.operation}${event.softDeleted ? " (soft)" : ""} by team ${teamOf(ctx.data)}`,
      );
    },
  },
};
