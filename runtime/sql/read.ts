/**
 * The statement of a read (spec: Generated operations, OpRead): one row by
 * primary key, with expansions, as JSON.
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import { Params } from "./bind.js";
import { addressRow, keyColumn, type RowKey } from "./key.js";
import type { SqlStatement } from "../exec/executor.js";
import { bindElement, bindList, columnRef, findColumn, listType } from "./column.js";
import { columnSqlName, quoteIdent, tableSql } from "./ident.js";
import { Aliases, type CompileOptions } from "./options.js";
import { rowMemberSelect, rowMembers, type RowShape } from "./row.js";
import { memberSelect, type RowStatement } from "./members.js";
import { SchemaCache } from "./schema-cache.js";
import { compileWhere } from "./where.js";

/**
 * Compiles a read of the row of `table` whose primary key is `key`, with the
 * relations `shape` names expanded (a list of relation names, or a
 * {@link RowShape} that also projects, as a list's `select` does), confined
 * by `scope`. The statement returns
 * zero rows (absent or out of scope) or one row: the members of the row
 * object (`layout`, written by `encodeRow`), the same object a list returns
 * for that row with the same projection (without one, its version tag is
 * the digest of that text, `rowVersionTag`). A composite key is the
 * values of its columns in key order (docs/decisions/1376-composite-key-address.md).
 * Throws a plain `Error` when `key` does not match the table's key, for unknown relations, or for a scope that
 * cannot be requalified onto an expanded table.
 */
export function compileRead(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: RowKey,
  shape: readonly string[] | RowShape = [],
  scope?: Predicate,
  options: CompileOptions = {},
): RowStatement {
  const params = new Params();
  const rowShape: RowShape = isRelationList(shape) ? { expand: shape } : shape;
  const single = !Array.isArray(key);
  if (single && rowShape.expand.length === 0 && rowShape.select === undefined && scope === undefined) {
    // The commonest read has one text per table: built once, so the statement's name is found without
    // hashing a new string per request (docs/decisions/1339-lighter-request-path.md). Only the key is bound
    // per request, as the text's `$1`; its condition's text is not rebuilt (decision 1341).
    bindElement(keyColumn(table), key as ScalarValue, params);
    const shape = plainReads.get(table, "", () => {
      const built = buildRead(service, table, key, { expand: [] }, undefined, options, new Params());
      // The cached text must take exactly the value bound here (the key), or every later read would be wrong.
      if (built.values.length !== 1 || !built.text.includes(" = $1::"))
        throw new Error(`the read of ${table.name} binds more than its key`);
      return built;
    });
    return { ...params.statement(shape.text), layout: shape.layout };
  }
  return buildRead(service, table, key, rowShape, scope, options, params);
}

/** True when a read's shape is given as the bare list of relations to expand. */
function isRelationList(shape: readonly string[] | RowShape): shape is readonly string[] {
  return Array.isArray(shape);
}

/** {@link compileRead}'s text and layout for a read without expansion or scope, per table and key condition. */
const plainReads = new SchemaCache<TableDescriptor, { text: string; layout: RowStatement["layout"] }>();

/**
 * One statement reading several rows of `table` by primary key, each as a
 * plain read (no expansion, no scope) would: the keys are one array bind
 * parameter, unnested with their ordinals, and each key's row is read by a
 * `LATERAL` subquery whose only FROM item is the table, so its members
 * (computed columns included) are the plain read's own text. Each returned
 * row carries the members of `layout` and `n`, the 1-based position in
 * `keys` it answers (text); a key with no row returns nothing, and a key
 * given twice is answered twice. Used to answer the reads of one turn of
 * the event loop together (docs/decisions/1348-reads-batched-per-turn.md).
 * Throws a plain `Error` as {@link compileRead} does.
 */
export function compileReadBatch(
  service: ServiceDescriptor,
  table: TableDescriptor,
  keys: readonly ScalarValue[],
): RowStatement {
  const params = new Params();
  bindList(keyColumn(table), keys, params);
  const shape = batchedReads.get(table, "", () => {
    const col = keyColumn(table);
    // The plain read's own select list and FROM item (readSelect), keyed by the unnested key.
    const { alias, select, from } = readSelect(service, table, { expand: [] }, {}, new Params());
    const read = `SELECT ${select.list} FROM ${from} WHERE ${columnRef(col, alias)} = "k"."v"`;
    const text =
      `SELECT "r".*, "k"."n"::text AS "n" FROM unnest($1::${listType(col)}) WITH ORDINALITY AS "k"("v", "n") ` +
      `CROSS JOIN LATERAL (${read}) AS "r"`;
    return { text, layout: select.layout };
  });
  return { ...params.statement(shape.text), layout: shape.layout };
}

/** {@link compileReadBatch}'s text and layout, per table. */
const batchedReads = new SchemaCache<TableDescriptor, { text: string; layout: RowStatement["layout"] }>();

/**
 * What every read of `table` selects: the row's members as `shape`
 * projects and expands them (expansion values bound in `params`) over the table under the
 * statement's first alias, and that FROM item. Shared by a read and the
 * batched reads, so a batch's rows are the lone read's byte for byte
 * (decision 1348).
 */
function readSelect(
  service: ServiceDescriptor,
  table: TableDescriptor,
  shape: RowShape,
  options: CompileOptions,
  params: Params,
): { alias: string; select: ReturnType<typeof memberSelect>; from: string } {
  const aliases = new Aliases();
  const alias = aliases.next();
  const select = memberSelect(rowMembers(service, table, alias, shape, { params, aliases, options }));
  return { alias, select, from: `${tableSql(table)} AS ${quoteIdent(alias)}` };
}

function buildRead(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: RowKey,
  shape: RowShape,
  scope: Predicate | undefined,
  options: CompileOptions,
  params: Params,
): RowStatement {
  const { alias, select, from } = readSelect(service, table, shape, options, params);
  const where = addressRow(table, key, scope, alias, params);
  return { ...params.statement(`SELECT ${select.list} FROM ${from} WHERE ${where}`), layout: select.layout };
}

/**
 * Whether the row of `table` whose primary key is `key` exists within
 * `scope` (and, with `live`, is not soft-deleted): what tells a write sent
 * with `If-Match` that matched nothing whether the row changed (412) or is
 * not there (404). The statement returns one row or none.
 */
export function compileRowExists(
  table: TableDescriptor,
  key: RowKey,
  scope: Predicate | undefined,
  options: { live?: boolean } = {},
): SqlStatement {
  const params = new Params();
  let where = addressRow(table, key, scope, "t0", params);
  if (options.live && table.softDeleteColumn !== undefined)
    where += ` AND "t0".${columnSqlName(findColumn(table, table.softDeleteColumn))} IS NULL`;
  return params.statement(`SELECT 1 AS "x" FROM ${tableSql(table)} AS "t0" WHERE ${where}`);
}

/**
 * `SELECT 1 … WHERE <where> LIMIT 1` on `table`: whether any row satisfies
 * `where` (a declared access rule's reference check asks whether a written
 * reference names a row the caller may read; docs/decisions/1367-access-rules.md).
 * The statement returns one row or none.
 */
export function compileAnyRow(table: TableDescriptor, where: Predicate): SqlStatement {
  const params = new Params();
  const condition = compileWhere(table, where, "t0", params);
  return params.statement(`SELECT 1 AS "x" FROM ${tableSql(table)} AS "t0" WHERE ${condition} LIMIT 1`);
}

/**
 * Reads and locks the row of `table` whose primary key is `key` within
 * `scope`, for a declared action (docs/decisions/1334-declared-actions.md):
 * `SELECT … FOR UPDATE`, so concurrent actions and writes on the row wait
 * for the action's transaction. Returns zero rows (absent or out of scope)
 * or one row, the row's members as a write returns them (`encodeRow` with
 * the statement's `layout` writes the object). With `lock: false`, the
 * same read without the lock (the answer after the implementation wrote).
 * A composite `key` is its values in key order.
 */
export function compileLockRow(
  table: TableDescriptor,
  key: RowKey,
  scope: Predicate | undefined,
  options: { lock?: boolean } = {},
): RowStatement {
  const params = new Params();
  const where = addressRow(table, key, scope, "t0", params);
  const row = rowMemberSelect(table, "t0");
  const lock = options.lock === false ? "" : ` FOR UPDATE OF "t0"`;
  // The text is a function of the table and this short tail, so it is built once per tail (decision 1341).
  const text = lockedRows.get(
    table,
    where + lock,
    () => `SELECT ${row.list} FROM ${tableSql(table)} AS "t0" WHERE ${where}${lock}`,
  );
  return { ...params.statement(text), layout: row.layout };
}

/** {@link compileLockRow}'s texts per table, by WHERE condition and lock. */
const lockedRows = new SchemaCache<TableDescriptor, string>();
