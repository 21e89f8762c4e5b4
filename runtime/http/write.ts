/**
 * POST, PATCH and DELETE (spec: Generated operations rules 5-7). Each write
 * runs in one transaction unless the resource sets DisableTransactions;
 * AfterCommit hooks run once the transaction has committed. On a table with
 * a soft-delete column, DELETE marks the row instead of deleting it
 * (docs/decisions/0601-soft-delete-removal.md).
 */
import type { Context } from "hono";
import type { Executor, QueryResult, SqlStatement } from "../exec/executor.js";
import type { CommitEvent, RowValues } from "../hooks.js";
import { HookError } from "../hook-error.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import { badRequest, ProblemError, type ProblemItem, problem } from "../problem.js";
import { DEFAULT_LIMITS, type TableDescriptor } from "../descriptor.js";
import { elementLocation, parseCreateBody, parseCreateRows, parseUpdateBody } from "../query/index.js";
import { pathKey } from "./item-key.js";
import {
  compileDelete,
  compileInsert,
  compileInsertMany,
  compileRowExists,
  compileUpdate,
  encodeRow,
  type ConflictAction,
} from "../sql/index.js";
import { conflictKeys, vocabulary } from "../query/vocabulary.js";
import { readPrefer } from "./prefer.js";
import { detailKey, toProblem, uniqueViolation } from "./db-errors.js";
import { compileSoftDelete } from "../sql/write.js";
import type { RowKey } from "../sql/index.js";
import { encodeColumnValue, findColumn, type ColumnValue } from "../sql/column.js";
import { readJsonBody } from "./body.js";
import { ifMatchTags, parseTagCondition, rowEntityTag, rowVersionTag, type TagCondition } from "./conditional.js";
import { hookContext, scopeOf, type ResourceContext } from "./context.js";
import { refuseUnchecked, refuseUnreadableReferences, writeCheckOf } from "./access.js";
import { notFound } from "./read.js";
import { emptyAnswer, jsonText } from "./respond.js";
import { refuseQueryParameters, stillReferenced } from "./write-refusals.js";

/**
 * Runs one write; with `checked` (a statement compiled with the access rules' write check) in a
 * transaction whatever the resource says, so a refused row is rolled back (docs/decisions/1367-access-rules.md).
 */
async function runWrite(rc: ResourceContext, stmt: SqlStatement, checked?: boolean): Promise<QueryResult> {
  if (checked) {
    return rc.db.transaction(async (tx: Executor) => {
      const r = await tx.query(stmt);
      refuseUnchecked(r.rows, () => "body");
      return r;
    });
  }
  if (rc.table.resource?.disableTransactions) return rc.db.query(stmt);
  return rc.db.transaction((tx: Executor) => tx.query(stmt));
}

/** The table's AfterCommit hook (spec: Hooks), or undefined when the application registered none. */
export function afterCommitHookOf(
  rc: ResourceContext,
): NonNullable<ResourceContext["hooks"]["afterCommit"]>[string] | undefined {
  return rc.hooks.afterCommit?.[rc.table.name];
}

/**
 * Spec rule 7: with DisableTransactions there is no commit to follow, so a
 * registered AfterCommit hook fails the request before anything is written.
 * @throws HookError (answered 500 `hook-misconfigured`)
 */
export function refuseCommitHookWithoutTransaction(rc: ResourceContext): void {
  if (afterCommitHookOf(rc) && rc.table.resource?.disableTransactions) {
    throw new HookError(
      "afterCommit",
      rc.table.name,
      "its resource disables transactions, so there is no commit to follow",
    );
  }
}

/** Runs the table's AfterCommit hook for one committed change; a failing hook is logged, the answer stays a success. */
export async function afterCommit(rc: ResourceContext, c: Context, event: CommitEvent): Promise<void> {
  const hook = afterCommitHookOf(rc);
  if (!hook) return;
  if (rc.deferred) {
    // An outer layer commits this request's transaction (runtime/http/idempotency.ts); it runs the hook then.
    rc.deferred.push(event);
    return;
  }
  try {
    await hook(hookContext(rc, rc.table.name, event.operation, c), event);
  } catch (e) {
    rc.logError(e, c);
  }
}

/** The single-column primary key of a row object, as the event of a hook carries it. */
export function keyOf(rc: ResourceContext, row: Record<string, unknown>): ScalarValue {
  const k = row[rc.table.primaryKey[0]];
  return typeof k === "number" || typeof k === "string" || typeof k === "boolean" ? k : String(k);
}

/**
 * The create body's values with every read-only column removed: the body
 * parser already refuses them, and the handler clears them again so that
 * only a hook can set one (spec: Column capabilities, read-only).
 */
function withoutReadOnly(rc: ResourceContext, values: RowValues): RowValues {
  const readOnly = readOnlyColumns(rc.table);
  const out: RowValues = {};
  for (const [name, value] of Object.entries(values)) {
    if (!readOnly.has(name)) out[name] = value;
  }
  return out;
}

const readOnlyByTable = new WeakMap<TableDescriptor, ReadonlySet<string>>();

/** The names of the table's read-only columns, found once per table: a bulk create asks for every field of every row. */
function readOnlyColumns(table: TableDescriptor): ReadonlySet<string> {
  let names = readOnlyByTable.get(table);
  if (names === undefined) {
    names = new Set(table.columns.filter((col) => col.readOnly).map((col) => col.name));
    readOnlyByTable.set(table, names);
  }
  return names;
}

/**
 * The create type's row-building step (spec: rule 5): BeforeCreate stamps
 * the row, then ValidateCreate may refuse it
 * (docs/decisions/0604-create-row-building.md).
 * @throws ProblemError 422 `invalid-row` listing the validator's problems
 */
async function buildRow(rc: ResourceContext, c: Context, body: RowValues): Promise<RowValues> {
  let values = withoutReadOnly(rc, body);
  const stamp = rc.hooks.beforeCreate?.[rc.table.name];
  if (stamp) values = await stamp(hookContext(rc, rc.table.name, "create", c), values);
  const validate = rc.hooks.validateCreate?.[rc.table.name];
  const problems: ProblemItem[] =
    (validate && (await validate(hookContext(rc, rc.table.name, "create", c), values))) || [];
  if (problems.length > 0) throw badRequest("invalid-row", problems);
  return values;
}

/**
 * Why a write that names one row wrote nothing: the row is not there (or
 * out of scope), a 404 whatever the request's `If-Match` said, since
 * preconditions are weighed only where the answer would otherwise succeed
 * (RFC 9110 §13.2.1); or, with `If-Match`, it is there but no longer the
 * version the tag names: 412 `precondition-failed` (decision 1329).
 */
async function absentOrChanged(
  rc: ResourceContext,
  key: RowKey,
  scope: Predicate | undefined,
  condition: TagCondition | undefined,
  options: { live?: boolean } = {},
): Promise<ProblemError> {
  if (condition === undefined) return notFound(rc);
  const found = await rc.db.query(compileRowExists(rc.table, key, scope, options));
  if (found.rows.length === 0) return notFound(rc);
  return rowChanged(rc);
}

/** The 412 of a write or action sent with an `If-Match` the row no longer matches (decision 1329). */
export function rowChanged(rc: ResourceContext): ProblemError {
  return problem("precondition-failed", `The ${rc.table.name} row has changed since the version If-Match names.`, [
    { location: "header.if-match", detail: "the row is not at this version; read it again" },
  ]);
}

/**
 * POST /<resource>: 201 with the stored row and a `Location` header; a JSON
 * array creates every row it holds (see {@link createRows}).
 */
export async function handleCreate(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  refuseQueryParameters(c, "create", ["on_conflict"]);
  const upsert = upsertOf(rc, c);
  const body = await readJsonBody(c);
  if (upsert) return upsertRows(rc, c, body, upsert);
  if (Array.isArray(body)) return createRows(rc, c, body);
  const values = await buildRow(rc, c, parseCreateBody(rc.table, body));
  await refuseUnreadableReferences(rc, c, [values], false);
  const check = writeCheckOf(rc, c, "create");
  const stmt = compileInsert(rc.service, rc.table, values, check);
  const stored = (await runWrite(rc, stmt, check !== undefined)).rows[0];
  const j = stored === undefined ? "{}" : encodeRow(stored, stmt.layout);
  const row = JSON.parse(j) as Record<string, unknown>;
  const headers: Record<string, string> = { etag: rowEntityTag(rowVersionTag(j)) };
  // The item path: one segment per key column, in key order (docs/decisions/1376-composite-key-address.md);
  // a composite key's only where it is served.
  if (rc.table.primaryKey.length === 1 || (rc.table.primaryKey.length > 1 && rc.table.resource?.ops.read)) {
    headers.location =
      rc.collectionPath + rc.table.primaryKey.map((k) => `/${encodeURIComponent(String(row[k]))}`).join("");
  }
  await afterCommit(rc, c, { table: rc.table.name, operation: "create", row, key: keyOf(rc, row) });
  return jsonText(c, j, 201, headers);
}

/**
 * POST /<resource> with a JSON array (docs/decisions/1330-bulk-create.md):
 * every element is decoded and built as a single create's body (BeforeCreate,
 * ValidateCreate), then all rows are inserted in one transaction, or none.
 * 201 with the stored rows in request order; each problem names its element
 * (`body[3].title`); AfterCommit runs once per row after the commit.
 */
async function createRows(rc: ResourceContext, c: Context, body: readonly unknown[]): Promise<Response> {
  const decoded = parseCreateRows(rc.table, body, rc.table.resource?.limits.maxBatch ?? DEFAULT_LIMITS.maxBatch);
  const rows = await buildRows(rc, c, decoded, true);
  await refuseUnreadableReferences(rc, c, rows, true);
  const check = writeCheckOf(rc, c, "create");
  const stmts = compileInsertMany(rc.service, rc.table, rows, undefined, check);
  let stored: QueryResult["rows"];
  try {
    stored =
      rc.table.resource?.disableTransactions && check === undefined
        ? (await Promise.all(stmts.map((s) => rc.db.query(s)))).flatMap((r) => r.rows)
        : await rc.db.transaction(async (tx) => {
            const out = await rowsOfAll(tx, stmts);
            refuseUnchecked(out, (i) => `body[${i}]`);
            return out;
          });
  } catch (e) {
    throw locateInBatch(toProblem(e, rc.table), e, rows);
  }
  // Every statement of one request has its table's one layout.
  const texts = stored.map((r) => encodeRow(r, stmts[0]!.layout));
  // Each row is parsed for its event only when the table has an AfterCommit hook: parsing 1,000 rows for
  // no hook was about 6 % of a bulk create's time in Node (README, "Tuning").
  if (afterCommitHookOf(rc)) {
    for (const j of texts) {
      const row = JSON.parse(j) as Record<string, unknown>;
      await afterCommit(rc, c, { table: rc.table.name, operation: "create", row, key: keyOf(rc, row) });
    }
  }
  return jsonText(c, `[${texts.join(",")}]`, 201);
}

/** The two resolutions of an upsert, as `Prefer: resolution=…` spells them (PostgREST's spelling). */
const RESOLUTIONS = { "merge-duplicates": "merge", "ignore-duplicates": "ignore" } as const;

/** An upsert request: what to do with a conflicting row, on which key, as `Prefer` named it. */
interface Upsert {
  mode: "merge" | "ignore";
  target: readonly string[];
  preference: keyof typeof RESOLUTIONS;
}

/**
 * The upsert a create asks for with `Prefer: resolution=merge-duplicates`
 * or `ignore-duplicates` and `?on_conflict=` (the primary key when absent),
 * or undefined for a plain create (docs/decisions/1332-upsert.md). The
 * columns must be the primary key or a unique key whose columns the
 * resource shows, in any order.
 * @throws ProblemError 400 naming `query.on_conflict` (allowed: the keys) or
 *   `header.prefer` (an `on_conflict` without a resolution)
 */
function upsertOf(rc: ResourceContext, c: Context): Upsert | undefined {
  const asked = readPrefer(c.req.header("prefer")).get("resolution");
  const preference =
    asked !== undefined && Object.hasOwn(RESOLUTIONS, asked) ? (asked as Upsert["preference"]) : undefined;
  const onConflict = new URL(c.req.url).searchParams.get("on_conflict");
  if (preference === undefined) {
    if (onConflict === null) return undefined;
    throw badRequest("invalid-query", [
      {
        location: "header.prefer",
        detail: "on_conflict needs Prefer: resolution=merge-duplicates or resolution=ignore-duplicates",
        allowed: Object.keys(RESOLUTIONS).map((r) => `resolution=${r}`),
      },
    ]);
  }
  const keys = conflictKeys(rc.table);
  const asText = (k: readonly string[]): string => [...k].sort().join(",");
  const named = onConflict === null ? rc.table.primaryKey : onConflict.split(",").map((s) => s.trim());
  const target = keys.find((k) => asText(k) === asText(named));
  if (!target)
    throw badRequest("invalid-query", [
      {
        location: "query.on_conflict",
        detail: `on_conflict must name the primary key or a unique key: ${onConflict ?? "(the primary key)"} is neither`,
        allowed: keys.map((k) => k.join(",")),
      },
    ]);
  return { mode: RESOLUTIONS[preference], target, preference };
}

/**
 * POST /<resource> as an upsert (docs/decisions/1332-upsert.md): one object
 * or an array, each built as a create's body, inserted in one transaction;
 * a row conflicting on the key is kept (`ignore`) or has the columns an
 * update may write overwritten (`merge`, only where BeforeQuery admits the
 * stored row: otherwise the whole request is the 409 a plain create on that
 * taken key gets, and nothing is written).
 * An array answers 200 with the rows stored or merged, in request order
 * (ignored ones left out); one object answers 201 (inserted), 200 (merged)
 * or 204 (ignored). `Preference-Applied` echoes the resolution.
 */
async function upsertRows(rc: ResourceContext, c: Context, body: unknown, upsert: Upsert): Promise<Response> {
  const many = Array.isArray(body);
  const maxBatch = rc.table.resource?.limits.maxBatch ?? DEFAULT_LIMITS.maxBatch;
  const decoded = many ? parseCreateRows(rc.table, body, maxBatch) : [parseCreateBody(rc.table, body)];
  const rows = await buildRows(rc, c, decoded, many);
  refuseRepeatedKeys(rc.table, rows, upsert.target, many);
  await refuseUnreadableReferences(rc, c, rows, many);
  const conflict: ConflictAction =
    upsert.mode === "ignore"
      ? { mode: "ignore", target: upsert.target }
      : {
          mode: "merge",
          target: upsert.target,
          // A column some rows leave out would be overwritten with its default for them: only shared ones are merged.
          update: vocabulary(rc.table).updateWritable.filter(
            (col) => !upsert.target.includes(col) && rows.every((r) => r[col] !== undefined),
          ),
          ...(await mergeScope(rc, c)),
        };
  // Every row an upsert stores, inserted or merged, must pass the create check (docs/decisions/1367-access-rules.md).
  const check = writeCheckOf(rc, c, "create");
  const stmts = compileInsertMany(rc.service, rc.table, rows, conflict, check);
  let stored: QueryResult["rows"];
  try {
    stored = await rc.db.transaction(async (tx) => {
      const out = await rowsOfAll(tx, stmts);
      refuseUnchecked(out, (i) => (many ? `body[${i}]` : "body"));
      // A merge onto a row out of reach is answered as a plain create on a taken key is: the key is taken
      // (which the unique key reveals anyway), never whose row it is nor that the row is out of reach.
      if (upsert.mode === "merge" && out.length < rows.length) throw uniqueViolation(rc.table, [...upsert.target]);
      return out;
    });
  } catch (e) {
    throw locateInBatch(toProblem(e, rc.table), e, rows);
  }
  const texts = stored.map((r) => encodeRow(r, stmts[0]!.layout));
  for (const [i, r] of stored.entries()) {
    const row = JSON.parse(texts[i]!) as Record<string, unknown>;
    const operation = r.inserted === "true" ? "create" : "update";
    await afterCommit(rc, c, { table: rc.table.name, operation, row, key: keyOf(rc, row) });
  }
  const applied = { "preference-applied": `resolution=${upsert.preference}` };
  if (many) return jsonText(c, `[${texts.join(",")}]`, 200, applied);
  const one = stored[0];
  if (one === undefined) return emptyAnswer(c, 204, applied);
  return jsonText(c, texts[0]!, one.inserted === "true" ? 201 : 200, {
    ...applied,
    etag: rowEntityTag(rowVersionTag(texts[0]!)),
  });
}

/** The BeforeQuery predicate a merge's update must satisfy, as a create's scope for an update. */
async function mergeScope(rc: ResourceContext, c: Context): Promise<{ scope?: Predicate }> {
  const scope = await scopeOf(rc, rc.table.name, "update", c);
  return scope === undefined ? {} : { scope };
}

/**
 * Two rows of one upsert with the same key: PostgreSQL refuses a statement
 * that would touch one row twice, so the request is refused first, naming
 * the second row.
 * @throws ProblemError 400 `invalid-body`
 */
function refuseRepeatedKeys(
  table: TableDescriptor,
  rows: readonly RowValues[],
  target: readonly string[],
  many: boolean,
): void {
  const seen = new Map<string, number>();
  const columns = target.map((col) => findColumn(table, col));
  rows.forEach((row, i) => {
    if (target.some((col) => row[col] === undefined || row[col] === null)) return;
    // Compared as the column's codec binds them: `String` would make two documents (or `["a,b"]` and
    // `["a","b"]`) one key, and JSON has no form for a bigint (docs/decisions/1358-values-through-codecs.md).
    const key = JSON.stringify(columns.map((col) => encodeColumnValue(col, row[col.name] as ColumnValue)));
    const first = seen.get(key);
    if (first !== undefined)
      throw badRequest("invalid-body", [
        {
          location: many ? `body[${i}].${target[0]}` : `body.${target[0]}`,
          detail: `the same ${target.join(", ")} as row ${first}: one request may write a row once`,
        },
      ]);
    seen.set(key, i);
  });
}

/** Runs `stmts` one after the other on `db` (a transaction) and gives every row they return, in order. */
async function rowsOfAll(db: Executor, stmts: readonly SqlStatement[]): Promise<QueryResult["rows"]> {
  const out: QueryResult["rows"] = [];
  for (const s of stmts) out.push(...(await db.query(s)).rows);
  return out;
}

/**
 * {@link buildRow} for every decoded row of a request; the hooks' problems
 * of all rows are reported at once, located in their row when `many`
 * (`body[3].title`).
 * @throws ProblemError 422 `invalid-row`
 */
async function buildRows(
  rc: ResourceContext,
  c: Context,
  decoded: readonly RowValues[],
  many: boolean,
): Promise<RowValues[]> {
  // Without BeforeCreate and ValidateCreate hooks nothing can refuse a row here, and a thousand rows need
  // no thousand awaits (decision 1341).
  if (!rc.hooks.beforeCreate?.[rc.table.name] && !rc.hooks.validateCreate?.[rc.table.name])
    return decoded.map((values) => withoutReadOnly(rc, values));
  const rows: RowValues[] = [];
  const invalid: ProblemItem[] = [];
  for (const [i, values] of decoded.entries()) {
    try {
      rows.push(await buildRow(rc, c, values));
    } catch (e) {
      if (!(e instanceof ProblemError)) throw e;
      invalid.push(...e.errors.map((item) => (many ? { ...item, location: elementLocation(item.location, i) } : item)));
    }
  }
  if (invalid.length > 0) throw badRequest("invalid-row", invalid);
  return rows;
}

/**
 * A database refusal of a bulk create, its `body.<column>` locations moved to
 * the element that holds the refused value when PostgreSQL's detail names it
 * (`Key (sku)=(a-1) already exists.`) and exactly one element carries it.
 */
function locateInBatch(p: ProblemError, e: unknown, rows: readonly RowValues[]): ProblemError {
  const named = detailKey((e as { detail?: unknown } | null)?.detail);
  if (!named || p.errors.length === 0) return p;
  const { columns, values } = named;
  const holders = rows
    .map((row, i) => ({ row, i }))
    .filter(({ row }) => columns.every((col, k) => row[col] !== undefined && String(row[col]) === values[k]));
  if (holders.length !== 1) return p;
  const at = holders[0].i;
  const moved = new ProblemError(
    p.status,
    p.kind,
    p.message,
    p.errors.map((item) => ({ ...item, location: elementLocation(item.location, at) })),
  );
  if (p.retryAfterSeconds !== undefined) moved.retryAfterSeconds = p.retryAfterSeconds;
  return moved;
}

/** PATCH /<resource>/{id}: 200 with the written row, 404 when absent or out of scope. */
export async function handleUpdate(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  refuseQueryParameters(c, "update");
  const key = pathKey(rc.table, c);
  const { fields } = parseUpdateBody(rc.table, await readJsonBody(c));
  await refuseUnreadableReferences(rc, c, [fields], false);
  const scope = await scopeOf(rc, rc.table.name, "update", c);
  const condition = parseTagCondition(c.req.header("if-match"));
  const check = writeCheckOf(rc, c, "update");
  const stmt = compileUpdate(rc.service, rc.table, key, fields, scope, ifMatchTags(condition), check);
  const written = (await runWrite(rc, stmt, check !== undefined)).rows[0];
  if (written === undefined) throw await absentOrChanged(rc, key, scope, condition);
  const j = encodeRow(written, stmt.layout);
  const row = JSON.parse(j) as Record<string, unknown>;
  await afterCommit(rc, c, { table: rc.table.name, operation: "update", row, key: keyOf(rc, row) });
  return jsonText(c, j, 200, { etag: rowEntityTag(rowVersionTag(j)) });
}

/**
 * DELETE /<resource>/{id}: 204, 404 when absent or out of scope. On a table
 * with a soft-delete column the row is marked (the column set to `now()`)
 * and a row already marked is a 404.
 */
export async function handleDelete(rc: ResourceContext, c: Context): Promise<Response> {
  refuseCommitHookWithoutTransaction(rc);
  refuseQueryParameters(c, "delete");
  const key = pathKey(rc.table, c);
  const id = Array.isArray(key) ? key.map(String).join(", ") : String(key);
  const scope = await scopeOf(rc, rc.table.name, "delete", c);
  const soft = rc.table.softDeleteColumn !== undefined;
  const condition = parseTagCondition(c.req.header("if-match"));
  const tags = ifMatchTags(condition);
  const stmt = soft
    ? compileSoftDelete(rc.service, rc.table, key, scope, tags)
    : compileDelete(rc.service, rc.table, key, scope, tags);
  let r: QueryResult;
  try {
    r = await runWrite(rc, stmt);
  } catch (e) {
    throw stillReferenced(rc, e, id) ?? e;
  }
  if (r.rowCount === 0) throw await absentOrChanged(rc, key, scope, condition, { live: soft });
  // The key as the response JSON spells it (a bigint key is a number there), as for create and update.
  const deleted = JSON.parse(r.rows[0]?.j ?? "{}") as Record<string, unknown>;
  const event: CommitEvent = { table: rc.table.name, operation: "delete", key: keyOf(rc, deleted) };
  if (soft) event.softDeleted = true;
  await afterCommit(rc, c, event);
  return emptyAnswer(c, 204);
}
