/**
 * Tenant isolation of the tracker (docs/decisions/0702-tracker-tenancy.md):
 * a BeforeQuery scope on every served table, from the caller's org; a
 * BeforeCreate stamp of the tenant (and of a comment's author); and checks
 * that a written reference points at a row of the caller's own org.
 *
 * Hooks read the caller from their `data` (`{ userId, orgId }`, set by the
 * app from the verified token), so the same hooks confine HTTP requests and
 * in-process queries. Without a caller they fail closed: no row matches.
 */
import { and, cmp, or, ProblemError } from "resc/runtime";
import type {
  Executor,
  HookContext,
  Hooks,
  Predicate,
  ProblemItem,
  RowValues,
  ServiceDescriptor,
  TableDescriptor,
} from "resc/runtime";
import type { Principal } from "./auth/token.js";

/**
 * The column holding the tenant of each served table. `orgs` is the tenant
 * itself. Every served table must be listed: test/tracker checks it, so a
 * new table cannot be served unconfined by accident.
 */
export const TENANT_COLUMN: Readonly<Record<string, string>> = Object.freeze({
  orgs: "id",
  users: "org_id",
  lists: "org_id",
  tasks: "org_id",
  task_watchers: "org_id",
  comments: "org_id",
});

/** A predicate no row satisfies (an empty disjunction is FALSE). */
const NOTHING: Predicate = or();

/** The caller a hook acts for, from the hook's data; undefined when there is none. */
export function callerOf(ctx: Pick<HookContext, "data">): Principal | undefined {
  const userId = ctx.data?.userId;
  const orgId = ctx.data?.orgId;
  return typeof userId === "string" && typeof orgId === "string" ? { userId, orgId } : undefined;
}

/**
 * The predicate confining `table` for `caller` and `operation`:
 * the tenant column equals the caller's org; on `tasks` also
 * `deleted_at IS NULL` (the soft-delete filter); a user may update only
 * their own profile and delete only their own comments.
 */
export function scopeFor(table: string, caller: Principal | undefined, operation: HookContext["operation"]): Predicate {
  const column = TENANT_COLUMN[table];
  if (caller === undefined || column === undefined) return NOTHING;
  const parts: Predicate[] = [cmp(column, "eq", caller.orgId)];
  if (table === "tasks") parts.push(cmp("deleted_at", "isnull"));
  if (table === "users" && operation === "update") parts.push(cmp("id", "eq", caller.userId));
  if (table === "comments" && operation === "delete") parts.push(cmp("author_id", "eq", caller.userId));
  return and(...parts);
}

function quote(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Text of a decoded key value for a bind parameter, or undefined for anything that is not a scalar key. */
function keyText(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return undefined;
}

/**
 * Problems for every forward reference in `values` that does not name a
 * row of the caller's org (or names a soft-deleted one). A missing row and
 * another tenant's row read the same, so the answer tells nothing about
 * other tenants. The tenant column itself is stamped, not checked.
 */
async function foreignReferences(
  db: Executor,
  service: ServiceDescriptor,
  table: TableDescriptor,
  values: Readonly<Record<string, unknown>>,
  orgId: string,
): Promise<ProblemItem[]> {
  const problems: ProblemItem[] = [];
  for (const rel of table.relations) {
    if (rel.kind !== "forward" || rel.column === TENANT_COLUMN[table.name]) continue;
    const key = keyText(values[rel.column]);
    const target = service.tables.find((t) => t.name === rel.target);
    const tenant = TENANT_COLUMN[rel.target];
    const targetCol = target?.columns.find((c) => c.name === rel.targetColumn);
    if (key === undefined || !target || tenant === undefined || !targetCol) continue;
    const tenantCol = target.columns.find((c) => c.name === tenant);
    const live = target.softDeleteColumn === undefined ? "" : ` AND ${quote(target.softDeleteColumn)} IS NULL`;
    const r = await db.query({
      text:
        `SELECT 1 AS "found" FROM ${quote(target.name)} WHERE ${quote(targetCol.name)} = $1::${targetCol.sqlType}` +
        ` AND ${quote(tenant)} = $2::${tenantCol?.sqlType ?? "uuid"}${live} LIMIT 1`,
      values: [key, orgId],
    });
    if (r.rows.length === 0) {
      problems.push({
        location: `body.${rel.column}`,
        detail: `${rel.column} does not name a ${rel.target} row of your org`,
      });
    }
  }
  return problems;
}

/**
 * The request body as an object. The runtime has already refused a body
 * that is not one, so anything else reads as empty and checks nothing.
 */
async function bodyObject(text: Promise<string>): Promise<Record<string, unknown>> {
  try {
    const v: unknown = JSON.parse(await text);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Options of {@link tenancyHooks}. */
export interface TenancyOptions {
  db: Executor;
  service: ServiceDescriptor;
}

/**
 * The tenancy hooks of every served table: `beforeQuery` (scope),
 * `beforeCreate` (stamp) and `validateCreate` (references), keyed by table.
 *
 * An update's references are checked in its BeforeQuery hook, the one hook
 * an update runs: by then the runtime has decoded the body (so the cached
 * text is valid JSON of the update type), and a refusal there is a 422
 * before anything is written.
 */
export function tenancyHooks(
  options: TenancyOptions,
): Required<Pick<Hooks, "beforeQuery" | "beforeCreate" | "validateCreate">> {
  const hooks: Required<Pick<Hooks, "beforeQuery" | "beforeCreate" | "validateCreate">> = {
    beforeQuery: {},
    beforeCreate: {},
    validateCreate: {},
  };
  for (const table of options.service.tables) {
    if (!table.resource || TENANT_COLUMN[table.name] === undefined) continue;
    const tenant = TENANT_COLUMN[table.name];
    const references = table.relations.some((r) => r.kind === "forward" && r.column !== tenant);

    hooks.beforeQuery[table.name] = async (ctx) => {
      const caller = callerOf(ctx);
      if (ctx.operation === "update" && references && caller && ctx.http) {
        const body = await bodyObject(ctx.http.req.text());
        const problems = await foreignReferences(options.db, options.service, table, body, caller.orgId);
        if (problems.length > 0) {
          throw new ProblemError(422, "invalid-row", problems[0].detail, problems);
        }
      }
      return scopeFor(table.name, caller, ctx.operation);
    };

    if (!table.resource.ops.create) continue;
    hooks.beforeCreate[table.name] = (ctx, values): RowValues => {
      const caller = callerOf(ctx);
      if (!caller) throw new Error(`creating a ${table.name} row needs the caller's org in the hook data`);
      const stamped: RowValues = { ...values, [tenant]: caller.orgId };
      if (table.name === "comments") stamped.author_id = caller.userId;
      return stamped;
    };
    if (references) {
      hooks.validateCreate[table.name] = async (ctx, values) => {
        const caller = callerOf(ctx);
        if (!caller) return [{ location: "body", detail: "no caller to check references against" }];
        return foreignReferences(options.db, options.service, table, values, caller.orgId);
      };
    }
  }
  return hooks;
}
