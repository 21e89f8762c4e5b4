/**
 * The tracker's declared actions on tasks (spec.resource; docs/hooks.md,
 * Actions): `POST /tasks/{id}/complete` and `POST /tasks/{id}/reopen`. resc
 * has locked the task within the caller's org (the access block of tasks)
 * before these run, and answers with the task as a read returns it.
 */
import { ProblemError, type ActionContext, type Hooks } from "resc/runtime";

function conflict(detail: string): ProblemError {
  return new ProblemError(409, "conflict", detail, [{ location: "path.id", detail }]);
}

/** Sets status to done; a task already done is a 409. A note given is kept in `attrs.note`. */
async function complete(ctx: ActionContext): Promise<void> {
  if (ctx.row?.status === "done") throw conflict("the task is already done");
  const attrs = (ctx.row?.attrs ?? {}) as Record<string, unknown>;
  const note = ctx.input.note;
  await ctx.update!(
    typeof note === "string"
      ? { status: "done", attrs: { ...attrs, note } as Record<string, string> }
      : { status: "done" },
  );
}

/** Sets a done task back to todo; a task that is not done is a 409. */
async function reopen(ctx: ActionContext): Promise<void> {
  if (ctx.row?.status !== "done") throw conflict("only a done task can be reopened");
  await ctx.update!({ status: "todo" });
}

/** The implementations of the tracker's actions, by table and action name. */
export const trackerActions: NonNullable<Hooks["actions"]> = {
  tasks: { complete, reopen },
};
