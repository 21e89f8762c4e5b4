/**
 * Declared actions (docs/decisions/1334-declared-actions.md; docs/http.md,
 * Actions). An item action, `POST /<resource>/{id}/<action>`, runs in one
 * transaction: the row is read and locked (`SELECT … FOR UPDATE`) within
 * the caller's BeforeQuery scope (outside it: 404, as a read), `If-Match`
 * is weighed against the locked row (412), the application's
 * implementation runs with the row, the decoded input and the transaction,
 * and the answer is the row as a read returns it (with its `ETag`) or the
 * declared output. A collection action, `POST /<resource>/<action>`, runs
 * its implementation in a transaction with the caller's scope. A
 * `ProblemError` the implementation throws rolls back and is answered as
 * its problem document; AfterCommit hooks follow the commit.
 */
import type { Context } from "hono";
import { refuseUnchecked, writeCheckOf } from "./access.js";
import { holdsDocuments, type ActionDescriptor, type ColumnDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { ActionContext, ActionImplementation, RowValues } from "../hooks.js";
import type { ScalarValue } from "../predicate.js";
import { problem } from "../problem.js";
import { parseActionInput, parseKey } from "../query/index.js";
import { decodeJsonValue, type WriteValue } from "../query/codecs.js";
import { compileLockRow, compileUpdate, compileValuesJson, encodeRow } from "../sql/index.js";
import { readOptionalJsonBody } from "./body.js";
import { ifMatchTags, parseTagCondition, rowEntityTag, rowVersionTag } from "./conditional.js";
import { hookContext, scopeOf, type ResourceContext } from "./context.js";
import { notFound } from "./read.js";
import { emptyAnswer, jsonText } from "./respond.js";
import { afterCommit, afterCommitHookOf, keyOf, rowChanged } from "./write.js";
import { refuseQueryParameters } from "./write-refusals.js";

/** What a finished action answers: the row (item actions without an output), the declared output, or nothing. */
type Outcome = { kind: "row"; j: string } | { kind: "output"; j: string } | { kind: "none" };

/** The implementation registered for `action` (the mount checked it is there). */
function implementationOf(rc: ResourceContext, action: ActionDescriptor): ActionImplementation {
  const impl = rc.hooks.actions?.[rc.table.name]?.[action.name];
  if (!impl) throw new Error(`no implementation of action ${rc.table.name}.${action.name}`);
  return impl;
}

/**
 * A returned output value in its JSON form, so the field's codec reads it:
 * the values resc itself hands an implementation (a `bigint` decoded from
 * the input, a `Date`) become the text their codecs take; arrays element
 * by element. Anything else is left for the codec to judge.
 */
function jsonForm(field: ColumnDescriptor, v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? v : v.toISOString();
  if (Array.isArray(v)) return v.map((e) => (holdsDocuments(field) ? documentOf(e) : jsonForm(field, e)));
  return v;
}

/** A `jsonb[]` or `json[]` element: decoded input holds each document as its JSON text (runtime/query/codecs.ts). */
function documentOf(e: unknown): unknown {
  if (typeof e !== "string") return e;
  try {
    return JSON.parse(e) as unknown;
  } catch {
    return e;
  }
}

/**
 * The declared output of `action` from what its implementation returned:
 * the declared fields only (nothing undeclared is ever served), each checked
 * against its type with the field's codec (a missing nullable one as null)
 * and written by the database in the JSON form a row member of that type
 * has (`compileValuesJson`; docs/decisions/1358-values-through-codecs.md).
 * @throws ProblemError 500 `hook-misconfigured` naming the field, inside the
 *   transaction, so a wrong output rolls the action back
 */
async function encodeOutput(
  rc: ResourceContext,
  action: ActionDescriptor,
  output: readonly ColumnDescriptor[],
  value: unknown,
  tx: Executor,
): Promise<string> {
  const at = `action ${rc.table.name}.${action.name}`;
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw problem(
      "hook-misconfigured",
      `The implementation of ${at} returned no output object, which the action declares.`,
    );
  const given = value as Record<string, unknown>;
  const values: WriteValue[] = [];
  for (const field of output) {
    const d = decodeJsonValue(field, jsonForm(field, given[field.name] ?? null));
    if (!d.ok)
      throw problem(
        "hook-misconfigured",
        `The implementation of ${at} returned an invalid ${field.name}: ${d.detail}.`,
      );
    values.push(d.value);
  }
  const row = (await tx.query(compileValuesJson(output, values))).rows[0] ?? {};
  return `{${output.map((f, i) => `${JSON.stringify(f.name)}:${row[`v${i}`] ?? "null"}`).join(",")}}`;
}

/** The handler of one declared action of a resource. */
export function actionHandler(action: ActionDescriptor): (rc: ResourceContext, c: Context) => Promise<Response> {
  return action.target === "item"
    ? (rc, c) => handleItemAction(rc, c, action)
    : (rc, c) => handleCollectionAction(rc, c, action);
}

async function handleItemAction(rc: ResourceContext, c: Context, action: ActionDescriptor): Promise<Response> {
  refuseQueryParameters(c, "action");
  // An item action needs a single-column key (the validator refuses an item action on a composite key): one segment.
  const key = parseKey(rc.table, c.req.param("id") ?? "") as ScalarValue;
  const input = parseActionInput(action.input, await readOptionalJsonBody(c));
  const scope = await scopeOf(rc, rc.table.name, "action", c, action.name);
  const tags = ifMatchTags(parseTagCondition(c.req.header("if-match")));
  const impl = implementationOf(rc, action);
  // The row the action writes must stay within what the caller's roles may write (docs/decisions/1367-access-rules.md).
  const check = writeCheckOf(rc, c, action.name);
  const outcome = await rc.db.transaction(async (tx: Executor): Promise<Outcome> => {
    const lock = compileLockRow(rc.table, key, scope);
    const lockedRow = (await tx.query(lock)).rows[0];
    if (lockedRow === undefined) throw notFound(rc);
    const locked = encodeRow(lockedRow, lock.layout);
    if (tags !== undefined && !tags.includes(rowVersionTag(locked))) throw rowChanged(rc);
    // Statements the implementation sends, counted: when its last one was update(), that update's
    // RETURNING already is the row as it now is, and the read after the implementation is saved.
    let sent = 0;
    let updated: { at: number; j: string } | undefined;
    const counted: Executor = {
      query: (stmt) => (sent++, tx.query(stmt)),
      transaction: (fn) => fn(counted),
      script: (sql) => (sent++, tx.script(sql)),
      close: async () => {},
    };
    const ctx: ActionContext = {
      ...hookContext(rc, rc.table.name, "action", c),
      operation: "action",
      action: action.name,
      input,
      tx: counted,
      row: JSON.parse(locked) as Record<string, unknown>,
      key,
      update: async (values: RowValues) => {
        const stmt = compileUpdate(rc.service, rc.table, key, values, undefined, undefined, check);
        const result = await counted.query(stmt);
        refuseUnchecked(result.rows, () => "body");
        const r = result.rows[0];
        updated = r === undefined ? undefined : { at: sent, j: encodeRow(r, stmt.layout) };
        return JSON.parse(updated?.j ?? "null") as Record<string, unknown>;
      },
    };
    if (scope !== undefined) ctx.scope = scope;
    const returned = await impl(ctx);
    if (action.output) return { kind: "output", j: await encodeOutput(rc, action, action.output, returned, tx) };
    if (updated !== undefined && updated.at === sent) return { kind: "row", j: updated.j };
    // The row as it now is, whatever the implementation did to it (it may have left the caller's scope).
    const read = compileLockRow(rc.table, key, undefined, { lock: false });
    const after = (await tx.query(read)).rows[0];
    return after === undefined ? { kind: "none" } : { kind: "row", j: encodeRow(after, read.layout) };
  });
  // The row is parsed for the event only when a hook will receive it, as for a bulk create (decision 1341).
  if (afterCommitHookOf(rc)) {
    const row = outcome.kind === "row" ? (JSON.parse(outcome.j) as Record<string, unknown>) : undefined;
    await afterCommit(rc, c, {
      table: rc.table.name,
      operation: "action",
      action: action.name,
      ...(row ? { row } : {}),
      key: row ? keyOf(rc, row) : (key as ScalarValue),
    });
  }
  if (outcome.kind === "row") return jsonText(c, outcome.j, 200, { etag: rowEntityTag(rowVersionTag(outcome.j)) });
  if (outcome.kind === "output") return jsonText(c, outcome.j, 200);
  return emptyAnswer(c, 204);
}

async function handleCollectionAction(rc: ResourceContext, c: Context, action: ActionDescriptor): Promise<Response> {
  refuseQueryParameters(c, "action");
  const input = parseActionInput(action.input, await readOptionalJsonBody(c));
  const scope = await scopeOf(rc, rc.table.name, "action", c, action.name);
  const impl = implementationOf(rc, action);
  const j = await rc.db.transaction(async (tx: Executor): Promise<string | undefined> => {
    const ctx: ActionContext = {
      ...hookContext(rc, rc.table.name, "action", c),
      operation: "action",
      action: action.name,
      input,
      tx,
    };
    if (scope !== undefined) ctx.scope = scope;
    const returned = await impl(ctx);
    return action.output ? encodeOutput(rc, action, action.output, returned, tx) : undefined;
  });
  await afterCommit(rc, c, { table: rc.table.name, operation: "action", action: action.name });
  return j === undefined ? emptyAnswer(c, 204) : jsonText(c, j, 200);
}
