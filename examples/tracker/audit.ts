/**
 * The tracker's AfterCommit hooks (spec: Events): after each committed
 * create, update or delete, one log line and one `audit_events` row
 * (docs/decisions/0702-tracker-tenancy.md). The hooks run after the commit,
 * so a failure here never undoes the write; the runtime logs it.
 */
import type { AfterCommitHook, CommitEvent, Executor, HookContext, ServiceDescriptor } from "resc/runtime";

/** Options of {@link auditHooks}. */
export interface AuditOptions {
  db: Executor;
  service: ServiceDescriptor;
  /** Receives one line per committed write. */
  log: (line: string) => void;
}

/** `task.create`, `list.delete`, …: the singular of the table and the operation, as the seed spells actions. */
export function auditAction(event: Pick<CommitEvent, "table" | "operation">): string {
  return `${event.table.replace(/s$/, "")}.${event.operation}`;
}

/**
 * The key as JSON, as the row's own JSON spells it: an integer key (which
 * the runtime may carry as text to keep bigint precision) is a number when
 * it is a safe integer; anything else is text.
 */
function keyJson(key: CommitEvent["key"], integer: boolean): string | number | boolean {
  if (typeof key === "number" || typeof key === "boolean") return key;
  const text = String(key);
  return integer && /^-?[0-9]+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
}

/**
 * The user and org a write was made by: the request's principal, the
 * subject and the `org` claim of its verified token (spec.resource's `auth`
 * block); undefined when nothing established one.
 */
export function actorOf(ctx: Pick<HookContext, "principal">): { userId: string; orgId: string } | undefined {
  const p = ctx.principal;
  const org = p?.claims.org;
  return p && p.subject !== "" && typeof org === "string" ? { userId: p.subject, orgId: org } : undefined;
}

/**
 * An AfterCommit hook for every served table that writes within a
 * transaction. Tables whose resource sets `disable_transactions` (comments)
 * get none: there is no commit to follow, and the runtime refuses such a
 * registration at request time (spec: Generated operations rule 7).
 *
 * The audit row holds the caller's org and user, the action and a payload
 * `{id, row?, soft_delete?}`; `row` is the written row as the response
 * carried it (never a hidden column).
 */
export function auditHooks(options: AuditOptions): Record<string, AfterCommitHook> {
  const hooks: Record<string, AfterCommitHook> = {};
  for (const table of options.service.tables) {
    const res = table.resource;
    if (!res || res.disableTransactions || !(res.ops.create || res.ops.update || res.ops.delete)) continue;
    const pk = table.columns.find((c) => c.name === table.primaryKey[0]);
    const integerKey = pk?.kind === "integer" || pk?.kind === "bigint";
    hooks[table.name] = async (ctx, event) => {
      const caller = actorOf(ctx);
      const action = auditAction(event);
      const id = keyJson(event.key, integerKey);
      options.log(
        `audit: ${action} ${String(id)} by ${caller?.userId ?? "no caller"}${event.softDeleted ? " (soft)" : ""}`,
      );
      if (!caller) return;
      const payload: Record<string, unknown> = { id };
      if (event.row) payload.row = event.row;
      if (event.softDeleted) payload.soft_delete = true;
      await options.db.query({
        text: `INSERT INTO "audit_events" ("org_id", "actor_id", "action", "payload") VALUES ($1::uuid, $2::uuid, $3, $4::jsonb)`,
        values: [caller.orgId, caller.userId, action, JSON.stringify(payload)],
      });
    };
  }
  return hooks;
}
