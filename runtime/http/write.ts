/**
 * POST, PATCH and DELETE (spec: Generated operations rules 5-7). Each write
 * runs in one transaction unless the resource sets DisableTransactions;
 * AfterCommit hooks run once the transaction has committed.
 */
import type { Context } from "hono";
import type { Executor, QueryResult, SqlStatement } from "../exec/executor.js";
import type { CommitEvent, HookContext, RowValues } from "../hooks.js";
import type { ScalarValue } from "../predicate.js";
import { parseCreateBody, parseKey, parseUpdateBody } from "../query/index.js";
import { compileDelete, compileInsert, compileUpdate } from "../sql/index.js";
import { ProblemError } from "../problem.js";
import { readJsonBody } from "./body.js";
import { scopeOf, type ResourceContext } from "./context.js";
import { notFound } from "./read.js";
import { jsonText } from "./respond.js";

async function runWrite(rc: ResourceContext, stmt: SqlStatement): Promise<QueryResult> {
  if (rc.table.resource?.disableTransactions) return rc.db.query(stmt);
  return rc.db.transaction((tx: Executor) => tx.query(stmt));
}

/**
 * Spec rule 7: with DisableTransactions there is no commit to follow, so a
 * registered AfterCommit hook fails the request before anything is written.
 */
function refuseCommitHookWithoutTransaction(rc: ResourceContext): void {
  if (rc.hooks.afterCommit?.[rc.table.name] && rc.table.resource?.disableTransactions) {
    throw new ProblemError(
      500,
      "hook-misconfigured",
      `An AfterCommit hook is registered on ${rc.table.name}, whose resource disables transactions; there is no commit to follow.`,
    );
  }
}

async function afterCommit(rc: ResourceContext, c: Context, event: CommitEvent): Promise<void> {
  const hook = rc.hooks.afterCommit?.[rc.table.name];
  if (!hook) return;
  try {
    await hook({ table: rc.table.name, operation: event.operation, http: c }, event);
  } catch (e) {
    rc.logError(e);
  }
}

function keyOf(rc: ResourceContext, row: Record<string, unknown>): ScalarValue {
  const k = row[rc.table.primaryKey[0]];
  return typeof k === "number" || typeof k === "string" || typeof k === "boolean" ? k : String(k);
}

/** POST /<resource>: 201 with the stored row and a `Location` header. */
export async function handleCreate(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  let values: RowValues = parseCreateBody(rc.table, await readJsonBody(c));
  const stamp = rc.hooks.beforeCreate?.[rc.table.name];
  if (stamp) {
    const ctx: HookContext = { table: rc.table.name, operation: "create", http: c };
    values = await stamp(ctx, values);
  }
  const r = await runWrite(rc, compileInsert(rc.service, rc.table, values));
  const j = r.rows[0]?.j ?? "{}";
  const row = JSON.parse(j) as Record<string, unknown>;
  const headers: Record<string, string> = {};
  if (rc.table.primaryKey.length === 1) {
    headers.location = `${rc.collectionPath}/${encodeURIComponent(String(keyOf(rc, row)))}`;
  }
  await afterCommit(rc, c, { table: rc.table.name, operation: "create", row, key: keyOf(rc, row) });
  return jsonText(c, j, 201, headers);
}

/** PATCH /<resource>/{id}: 200 with the written row, 404 when absent. */
export async function handleUpdate(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  const key = parseKey(rc.table, c.req.param("id") ?? "");
  const { fields } = parseUpdateBody(rc.table, await readJsonBody(c));
  const scope = await scopeOf(rc, rc.table.name, "update", c);
  const r = await runWrite(rc, compileUpdate(rc.service, rc.table, key, fields, scope));
  const j = r.rows[0]?.j;
  if (j == null) throw notFound(rc);
  const row = JSON.parse(j) as Record<string, unknown>;
  await afterCommit(rc, c, { table: rc.table.name, operation: "update", row, key });
  return jsonText(c, j);
}

/** DELETE /<resource>/{id}: 204, 404 when absent. */
export async function handleDelete(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  const key = parseKey(rc.table, c.req.param("id") ?? "");
  const scope = await scopeOf(rc, rc.table.name, "delete", c);
  const r = await runWrite(rc, compileDelete(rc.service, rc.table, key, scope));
  if (r.rowCount === 0) throw notFound(rc);
  await afterCommit(rc, c, { table: rc.table.name, operation: "delete", key });
  return c.body(null, 204);
}
