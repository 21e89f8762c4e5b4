/**
 * The access rules at the HTTP door (docs/decisions/1367-access-rules.md): an
 * operation the principal's roles are not granted is a 403 before anything
 * runs; a request is answered on the descriptors its roles see; a row a write
 * produces must pass the rules' check, else the write is refused and rolled
 * back. The row rules themselves are BeforeQuery hooks (runtime/access/hooks.ts).
 * In the database-role mode, the request's statements also act as its
 * database identity (docs/decisions/1368-database-row-level-security.md).
 */
import type { Context } from "hono";
import type { ServiceDescriptor } from "../descriptor.js";
import { principalOf } from "../auth/principal.js";
import { databaseIdentityOf } from "../auth/database.js";
import { asDatabaseIdentity } from "../exec/identity.js";
import { accessCheck, governed, granted, type RuleOperation } from "../access/rules.js";
import { serviceView, viewsDiffer } from "../access/view.js";
import { and, cmp, type Predicate, type ScalarValue } from "../predicate.js";
import { badRequest, problem, type ProblemItem } from "../problem.js";
import { compileAnyRow, WRITE_CHECK_MEMBER } from "../sql/index.js";
import { scopeOf, type ResourceContext } from "./context.js";

const views = new WeakMap<ServiceDescriptor, Map<string, ServiceDescriptor>>();
const contexts = new WeakMap<ResourceContext, Map<ServiceDescriptor, ResourceContext>>();

/**
 * The resource context a request is answered with: `rc` itself on a service
 * without an `auth` block; otherwise, once the principal's roles are granted
 * `op`, `rc` on the descriptors those roles see.
 * @throws ProblemError 401 `unauthorized` (with the request's bearer challenge) when nothing established a
 *   principal (the built-in verification was turned off and no middleware set one), or when the anonymous
 *   role of a request without a token is not granted `op`; 403 `forbidden` when no role of a principal
 *   that is not anonymous is granted `op` on the table
 */
export function admitted(rc: ResourceContext, c: Context, op: RuleOperation): ResourceContext {
  if (!governed(rc.service)) return rc;
  const principal = principalOf(c);
  if (principal === undefined)
    throw problem("unauthorized", "This endpoint needs a bearer token.", [
      { location: "header.authorization", detail: "no credential was given" },
    ]);
  if (!granted(rc.table, principal, op)) {
    // A caller without a token can mend this by sending one: a 401 with the challenge, as PostgREST answers
    // for its anonymous role; a verified caller's roles are what they are, a 403 (docs/decisions/1367-access-rules.md).
    if (principal.anonymous)
      throw problem("unauthorized", "This request needs a bearer token.", [
        { location: "header.authorization", detail: "missing: send Authorization: Bearer <token>" },
      ]);
    throw problem("forbidden", `Your role may not ${describe(op)} ${rc.collectionPath}.`, [
      { location: "request", detail: `not granted to ${principal.roles.join(", ")}` },
    ]);
  }
  if (!viewsDiffer(rc.service)) return rc;
  let byService = views.get(rc.service);
  if (!byService) views.set(rc.service, (byService = new Map()));
  const view = serviceView(rc.service, principal, byService);
  let byView = contexts.get(rc);
  if (!byView) contexts.set(rc, (byView = new Map()));
  let out = byView.get(view);
  if (!out) {
    const table = view.tables.find((t) => t.name === rc.table.name) ?? rc.table;
    out = { ...rc, service: view, table };
    byView.set(view, out);
  }
  return out;
}

/**
 * The resource context a request of the database-role mode is answered with
 * (docs/decisions/1368-database-row-level-security.md): `rc` with `db` and
 * `readDb` acting as the principal's database identity, so that every
 * statement the handler, its hooks (`ctx.db`) and the idempotency layer send
 * runs in a transaction that first sets the role and the claims. Made per
 * request; `rc` itself when the service's `auth` block has no `database`
 * settings. Call it on the context {@link admitted} returned.
 * @throws ProblemError 401 `unauthorized` when nothing established a principal, or an anonymous one has no
 *   database role; 403 `forbidden` when none of the principal's roles is declared
 */
export function withDatabaseIdentity(rc: ResourceContext, c: Context): ResourceContext {
  const auth = rc.service.auth;
  const database = auth?.database;
  if (auth === undefined || database === undefined) return rc;
  const principal = principalOf(c);
  if (principal === undefined)
    throw problem("unauthorized", "This endpoint needs a bearer token.", [
      { location: "header.authorization", detail: "no credential was given" },
    ]);
  const identity = databaseIdentityOf(auth, database, principal);
  const out: ResourceContext = { ...rc, db: asDatabaseIdentity(rc.db, identity) };
  if (rc.readDb) out.readDb = asDatabaseIdentity(rc.readDb, identity, { reads: true });
  return out;
}

function describe(op: RuleOperation): string {
  if (op === "events") return "follow the changes of";
  if (["list", "read", "create", "update", "delete"].includes(op)) return `${op} on`;
  return `run action ${op} on`;
}

/**
 * The check a row written by `op` must pass for this request's principal, or
 * undefined when nothing limits it (no `auth` block, or a grant without rules).
 */
export function writeCheckOf(rc: ResourceContext, c: Context, op: RuleOperation): Predicate | undefined {
  if (!governed(rc.service)) return undefined;
  const principal = principalOf(c);
  return principal === undefined ? undefined : accessCheck(rc.service, rc.table, principal, op);
}

/**
 * Refuses a write whose rows fail the check they were compiled with: call it
 * inside the write's transaction, so the refusal rolls the write back.
 * @param location where the offending row came from (`body`, `body[2]`)
 * @throws ProblemError 403 `forbidden`
 */
export function refuseUnchecked(rows: readonly Record<string, unknown>[], location: (i: number) => string): void {
  const at = rows.findIndex((r) => r[WRITE_CHECK_MEMBER] !== undefined && r[WRITE_CHECK_MEMBER] !== "true");
  if (at < 0) return;
  throw problem("forbidden", "The row this write would store is outside what your role may write.", [
    { location: location(at), detail: "the written row does not satisfy the access rules" },
  ]);
}

/**
 * Refuses written forward references that name a row the caller may not read
 * (docs/decisions/1367-access-rules.md): under declared rules a tenant's row
 * must not point into another tenant, and "not there" and "not yours" read
 * the same. Only references to tables that declare `access` blocks are
 * judged (a lookup table nobody is granted is no tenant boundary); the
 * target's `read` rule and soft-delete filter apply, as its own read would.
 * @param rows the values written, one per row (`many`: located `body[i].col`)
 * @throws ProblemError 422 `invalid-row` naming every such reference
 */
export async function refuseUnreadableReferences(
  rc: ResourceContext,
  c: Context,
  rows: readonly Readonly<Record<string, unknown>>[],
  many: boolean,
): Promise<void> {
  if (!governed(rc.service) || principalOf(c) === undefined) return;
  const problems: ProblemItem[] = [];
  for (const rel of rc.table.relations) {
    if (rel.kind !== "forward") continue;
    const target = rc.service.tables.find((t) => t.name === rel.target);
    if (!target || (target.access ?? []).length === 0) continue;
    const col = target.columns.find((x) => x.name === rel.targetColumn);
    if (!col) continue;
    const seen = new Map<string, boolean>();
    let scope: Predicate | undefined | null = null;
    for (const [i, values] of rows.entries()) {
      const v = values[rel.column];
      if (v === undefined || v === null) continue;
      // A bigint key has no JSON form (docs/decisions/1358-values-through-codecs.md).
      const text = typeof v === "bigint" ? `${v}n` : JSON.stringify(v);
      let found = seen.get(text);
      if (found === undefined) {
        if (scope === null) scope = await scopeOf(rc, target.name, "read", c);
        const where = cmp(rel.targetColumn, "eq", v as ScalarValue);
        const r = await rc.db.query(compileAnyRow(target, scope === undefined ? where : and(where, scope)));
        found = r.rows.length > 0;
        seen.set(text, found);
      }
      if (!found)
        problems.push({
          location: many ? `body[${i}].${rel.column}` : `body.${rel.column}`,
          detail: `${rel.column} does not name a ${rel.target} row you may read`,
        });
    }
  }
  if (problems.length > 0) throw badRequest("invalid-row", problems);
}
