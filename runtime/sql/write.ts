/**
 * The statements of create, update and delete (spec: Generated operations).
 * Each returns the written row through the same JSON builder as a read, so
 * a stored row has one form everywhere
 * (docs/decisions/0402-write-statements.md). Expansions are never added:
 * writes return the stored row only.
 */
import type { SqlStatement } from "../exec/executor.js";
import type { ColumnDescriptor, ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import type { Predicate, ScalarValue } from "../predicate.js";
import { Params } from "./bind.js";
import { bindColumnValue, encodeColumnValue, findColumn, type ColumnValue } from "./column.js";
import { columnSqlName, tableSql } from "./ident.js";
import { addressRow, type RowKey } from "./key.js";
import { compileSearch } from "./search.js";
import { compileWhere } from "./where.js";
import { columnEntries, outputColumns, resourceComputed, rowJson } from "./output.js";
import { rowMemberSelect, tagCondition } from "./row.js";
import type { RowStatement } from "./members.js";
import { SchemaCache } from "./schema-cache.js";

/**
 * Column values of a write, keyed by column name. `undefined` members are
 * skipped (absent); `null` writes SQL NULL (also for a `jsonb` column).
 */
export type WriteValues = Record<string, ColumnValue | null | undefined>;

/** The present values as (quoted column, bound SQL) pairs; refuses computed columns, which are never stored. */
function assignments(table: TableDescriptor, values: WriteValues, params: Params): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const col = storedColumn(table, name);
    out.push([columnSqlName(col), bindColumnValue(col, value, params)]);
  }
  return out;
}

/** Column `name` of `table`, which a write may store; throws a plain `Error` for an unknown or a computed column. */
function storedColumn(table: TableDescriptor, name: string): ColumnDescriptor {
  const col = findColumn(table, name);
  if (col.computed !== undefined)
    throw new Error(`column "${name}" of relation "${table.name}" is computed and cannot be written`);
  return col;
}

/**
 * `<write> RETURNING <row members>`: each written row's members (column
 * `j` and any JSON columns, laid out by `layout`), from which `encodeRow`
 * writes the row object a read of the row sends, byte for byte
 * (docs/decisions/1351-written-rows-as-members.md). The members are in the
 * RETURNING list of the write itself (not a CTE read by a SELECT), so the
 * statement's row count is the number of rows written on both executors:
 * PGlite reports no affected rows for a SELECT over a data-modifying CTE.
 */
function returningRow(table: TableDescriptor, write: string, params: Params, check?: Predicate): RowStatement {
  if (check !== undefined) {
    // Judged on the written row inside the write itself; the handler refuses (and so rolls back) a row that
    // fails it (docs/decisions/1367-access-rules.md). Not cached: its bind parameters vary.
    const judged = `${returningText(table, write)}, ((${compileWhere(table, check, "t0", params)}) IS TRUE)::text AS ${WRITE_CHECK}`;
    return { ...params.statement(judged), layout: rowMemberSelect(table, "t0").layout };
  }
  // The RETURNING list (about 2 KB for a film) depends on the table only, so the whole text is a function of
  // the short write before it: cached by it, the same string object comes back and its prepared statement
  // is found without hashing a new 2 KB string (decision 1341). A long write (a bulk create's thousand
  // tuples) is not kept.
  const text =
    write.length <= MAX_CACHED_WRITE
      ? returningTexts.get(table, write, () => returningText(table, write))
      : returningText(table, write);
  return { ...params.statement(text), layout: rowMemberSelect(table, "t0").layout };
}

/**
 * The member of a written row saying whether it passes the access rules' write check (`true`/`false`
 * text), present when the statement was compiled with a check (docs/decisions/1367-access-rules.md).
 */
export const WRITE_CHECK_MEMBER = "resc_check";
const WRITE_CHECK = `"${WRITE_CHECK_MEMBER}"`;

/** The longest write, in characters, whose full text {@link returningRow} keeps. */
const MAX_CACHED_WRITE = 1024;

const returningTexts = new SchemaCache<TableDescriptor, string>();

function returningText(table: TableDescriptor, write: string): string {
  return `${write} RETURNING ${rowMemberSelect(table, "t0").list}`;
}

/**
 * `a = $1, b = $2`: the SET list of an update of `table`.
 * @throws Error when no value is present (the handlers refuse an empty change set with 400 first)
 */
function setList(table: TableDescriptor, values: WriteValues, params: Params): string {
  const set = assignments(table, values, params);
  if (set.length === 0) throw new Error(`update of relation "${table.name}" has no values to set`);
  return set.map(([c, v]) => `${c} = ${v}`).join(", ");
}

/**
 * Compiles an INSERT of one row of `table` with `values` (every value bound
 * and cast to its column's type; `DEFAULT VALUES` when none is present).
 * The statement returns one row, the members of the stored row as a read
 * returns it (database defaults and triggers applied; `encodeRow` with the
 * statement's `layout` writes it). Throws a plain
 * `Error` for an unknown or computed column or a value of the wrong shape;
 * callers have already refused read-only, hidden and immutable fields for
 * request bodies, so hook-stamped columns pass here.
 */
export function compileInsert(
  service: ServiceDescriptor,
  table: TableDescriptor,
  values: WriteValues,
  check?: Predicate,
): RowStatement {
  void service; // same signature as the other statements; the written row has no expansions
  const params = new Params();
  const set = assignments(table, values, params);
  const body =
    set.length === 0
      ? "DEFAULT VALUES"
      : `(${set.map(([c]) => c).join(", ")}) VALUES (${set.map(([, v]) => v).join(", ")})`;
  return returningRow(table, `INSERT INTO ${tableSql(table)} AS "t0" ${body}`, params, check);
}

/** PostgreSQL's ceiling on the bind parameters of one statement. */
const MAX_PARAMETERS = 65535;

/**
 * Compiles the INSERTs of a bulk create: one multi-row `INSERT … VALUES` per
 * chunk that fits PostgreSQL's 65,535 bind parameters, a column a row does
 * not carry written as `DEFAULT`. Each statement returns the stored rows as
 * {@link compileInsert} does (their members, one `layout` for all), in the order of `rows`: a plain
 * VALUES list is inserted and returned in order. With `conflict` (an
 * upsert) each also says whether its row was inserted (`inserted`, `true`
 * or `false`: PostgreSQL's `xmax` is 0 on a row this statement created),
 * and a row left as it was by `ignore` (or out of a merge's scope) is not
 * returned. Run them in one transaction (docs/decisions/1330-bulk-create.md,
 * 1332-upsert.md). Statements of the same shape (row count, columns, cells
 * left `DEFAULT`) share one text object (1355).
 * @throws Error when a value does not fit its column (the handlers check first)
 */
export function compileInsertMany(
  service: ServiceDescriptor,
  table: TableDescriptor,
  rows: readonly WriteValues[],
  conflict?: ConflictAction,
  check?: Predicate,
): RowStatement[] {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r).filter((k) => r[k] !== undefined)))];
  if (columns.length === 0 && conflict === undefined) return rows.map((r) => compileInsert(service, table, r, check));
  // Each column is found, checked and quoted once per request, not once per cell: per cell this was most
  // of a 1,000-row create's statement building (README, "Tuning"). Every row binds in the same column
  // order, so rows of one shape give one statement text, one prepared statement.
  const written = columns.map((name) => storedColumn(table, name));
  const names = written.map(columnSqlName).join(", ");
  // A merge's scope adds a few parameters of its own to each statement.
  const perStatement = Math.max(1, Math.floor((MAX_PARAMETERS - 1000) / columns.length));
  const out: RowStatement[] = [];
  const row = rowMemberSelect(table, "t0");
  for (let start = 0; start < rows.length; start += perStatement) {
    const params = new Params();
    const end = Math.min(rows.length, start + perStatement);
    // Each bound cell is `$n::<its column's type>`, `n` counting the bound cells, so the text depends on the
    // row count, the columns and which cells are DEFAULT only: built once per such shape, and the same string
    // object finds its prepared statement without hashing tens of kilobytes again (decision 1355).
    let holes = "";
    for (let i = start; i < end; i++) {
      const values = rows[i]!;
      for (let k = 0; k < written.length; k++) {
        const col = written[k]!;
        const value = values[col.name];
        if (value === undefined) holes += `${i - start},${k};`;
        else params.push(encodeColumnValue(col, value));
      }
    }
    const texts = insertTexts.get(table, `${end - start}\u0000${names}\u0000${holes}`, () => {
      const insert = insertText(table, names, written, rows.slice(start, end));
      return { insert, returning: returningText(table, insert) };
    });
    let text =
      conflict === undefined
        ? texts.returning
        : `${texts.insert} ${onConflict(table, conflict, params)} RETURNING ${row.list}, ("t0".xmax = 0)::text AS "inserted"`;
    if (check !== undefined)
      text += `, ((${compileWhere(table, check, "t0", params)}) IS TRUE)::text AS ${WRITE_CHECK}`;
    out.push({ ...params.statement(text), layout: row.layout });
  }
  return out;
}

/** The texts of a bulk create's statements by shape; a few per table, each up to some tens of kilobytes. */
const insertTexts = new SchemaCache<TableDescriptor, { insert: string; returning: string }>(16);

/**
 * `INSERT INTO … (names) VALUES (…), (…)` for `rows`, a cell the row lacks
 * written `DEFAULT` and each other `$n::<type>` in row order, as
 * {@link compileInsertMany} binds them; `DEFAULT VALUES` without columns.
 */
function insertText(
  table: TableDescriptor,
  names: string,
  written: readonly ColumnDescriptor[],
  rows: readonly WriteValues[],
): string {
  if (written.length === 0) return `INSERT INTO ${tableSql(table)} AS "t0" DEFAULT VALUES`;
  const placeholders = new Params();
  const tuples = rows.map(
    (values) =>
      `(${written.map((col) => (values[col.name] === undefined ? "DEFAULT" : placeholders.typed(null, col.sqlType))).join(", ")})`,
  );
  return `INSERT INTO ${tableSql(table)} AS "t0" (${names}) VALUES ${tuples.join(", ")}`;
}

/**
 * What an upsert does with a row that conflicts on `target` (the primary
 * key or a unique key, column names): `ignore` keeps the stored row
 * (`DO NOTHING`); `merge` overwrites the stored row's `update` columns with
 * the request's values (`DO UPDATE … SET c = EXCLUDED.c`), only where
 * `scope` admits the stored row (docs/decisions/1332-upsert.md).
 */
export type ConflictAction =
  | { mode: "ignore"; target: readonly string[] }
  | { mode: "merge"; target: readonly string[]; update: readonly string[]; scope?: Predicate };

/**
 * `ON CONFLICT (…) DO NOTHING | DO UPDATE SET …`. A merge with nothing to
 * overwrite sets the first target column to itself, so the stored row is
 * still locked and returned (a `DO NOTHING` returns nothing).
 */
function onConflict(table: TableDescriptor, conflict: ConflictAction, params: Params): string {
  const target = conflict.target.map((name) => columnSqlName(findColumn(table, name))).join(", ");
  if (conflict.mode === "ignore") return `ON CONFLICT (${target}) DO NOTHING`;
  const set = (conflict.update.length > 0 ? conflict.update : [conflict.target[0]!])
    .map((name) => columnSqlName(findColumn(table, name)))
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(", ");
  const where = conflict.scope === undefined ? "" : ` WHERE ${compileWhere(table, conflict.scope, "t0", params)}`;
  return `ON CONFLICT (${target}) DO UPDATE SET ${set}${where}`;
}

/**
 * Compiles an UPDATE of the row of `table` whose primary key is `key`,
 * confined by `scope` and, with `ifMatch`, only while its version tag is one
 * of those. Returns zero rows (absent, out of scope or changed since) or one
 * row, the members of the written row (as {@link compileInsert}). Throws a plain `Error` when no
 * value is present (the handler answers an empty change set with 400 before
 * this), or for an unknown or computed column. A composite `key` is its values in key order.
 */
export function compileUpdate(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: RowKey,
  values: WriteValues,
  scope?: Predicate,
  ifMatch?: readonly string[],
  check?: Predicate,
): RowStatement {
  void service; // same signature as compileInsert
  const params = new Params();
  const changes = setList(table, values, params);
  const where = addressRow(table, key, scope, "t0", params) + tagCondition(table, "t0", ifMatch, params);
  const write = `UPDATE ${tableSql(table)} AS "t0" SET ${changes} WHERE ${where}`;
  return returningRow(table, write, params, check);
}

/**
 * Compiles a DELETE of the row of `table` whose primary key is `key`,
 * confined by `scope` and, with `ifMatch`, only while its version tag is one
 * of those. The statement's row count (0 or 1) tells whether a
 * row was deleted; the row returned has text column `j` holding the deleted
 * key as an object, e.g. `{"id":7}` (every key column for a composite key).
 */
export function compileDelete(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: RowKey,
  scope?: Predicate,
  ifMatch?: readonly string[],
): SqlStatement {
  void service; // taken for a signature uniform with the other statements; a delete reads no other table
  const params = new Params();
  const keyColumns = outputColumns(table, resourceComputed(table)).filter((c) => table.primaryKey.includes(c.name));
  const where = addressRow(table, key, scope, "t0", params) + tagCondition(table, "t0", ifMatch, params);
  const write = `DELETE FROM ${tableSql(table)} AS "t0" WHERE ${where}`;
  return params.statement(`${write} RETURNING ${rowJson(columnEntries(keyColumns, "t0"))}::text AS "j"`);
}

/**
 * Compiles the removal of the row of `table` whose primary key is `key`,
 * confined by `scope` (and `ifMatch`, as for {@link compileDelete}), on a table with a soft-delete column: an UPDATE
 * setting that column to `now()` (the transaction's time), only while it is
 * still NULL, so a removed row cannot be removed again
 * (docs/decisions/0601-soft-delete-removal.md). Row count and `j` are as
 * {@link compileDelete}'s. Throws a plain `Error` when the table has no
 * soft-delete column.
 */
export function compileSoftDelete(
  service: ServiceDescriptor,
  table: TableDescriptor,
  key: RowKey,
  scope?: Predicate,
  ifMatch?: readonly string[],
): SqlStatement {
  void service; // same signature as compileDelete
  if (table.softDeleteColumn === undefined) throw new Error(`relation "${table.name}" has no soft-delete column`);
  const params = new Params();
  const marker = columnSqlName(findColumn(table, table.softDeleteColumn));
  const keyColumns = outputColumns(table, resourceComputed(table)).filter((c) => table.primaryKey.includes(c.name));
  const live = `"t0".${marker} IS NULL`;
  const where = addressRow(table, key, scope, "t0", params) + tagCondition(table, "t0", ifMatch, params);
  const write = `UPDATE ${tableSql(table)} AS "t0" SET ${marker} = now() WHERE ${where} AND ${live}`;
  return params.statement(`${write} RETURNING ${rowJson(columnEntries(keyColumns, "t0"))}::text AS "j"`);
}

/**
 * The rows a filtered write changes (docs/decisions/1333-filtered-writes.md):
 * the request's filters and search, as the list grammar reads them, and the
 * caller's BeforeQuery scope. At least one of `where` and `search` is set.
 */
export interface RowFilter {
  where?: Predicate;
  search?: string;
  scope?: Predicate;
}

function filterCondition(table: TableDescriptor, f: RowFilter, params: Params): string {
  const parts: string[] = [];
  if (f.where) parts.push(compileWhere(table, f.where, "t0", params));
  if (f.search !== undefined) parts.push(compileSearch(table, f.search, "t0", params));
  if (f.scope) parts.push(compileWhere(table, f.scope, "t0", params));
  if (parts.length === 0) throw new Error(`a filtered write of relation "${table.name}" needs a condition`);
  return parts.map((p) => `(${p})`).join(" AND ");
}

/**
 * Compiles an UPDATE of every row of `table` that `filter` matches, setting
 * `values`. Returns one row per written row, its members (as
 * {@link compileInsert}).
 * @throws Error when no value is present or a column is unknown or computed
 */
export function compileUpdateWhere(
  service: ServiceDescriptor,
  table: TableDescriptor,
  values: WriteValues,
  filter: RowFilter,
  check?: Predicate,
): RowStatement {
  void service; // same signature as compileUpdate
  const params = new Params();
  const changes = setList(table, values, params);
  return returningRow(
    table,
    `UPDATE ${tableSql(table)} AS "t0" SET ${changes} WHERE ${filterCondition(table, filter, params)}`,
    params,
    check,
  );
}

/**
 * Compiles a DELETE of every row of `table` that `filter` matches (on a
 * table with a soft-delete column, the marking of every live one). Returns
 * one row per removed row, `j` holding its key as an object.
 */
export function compileDeleteWhere(
  service: ServiceDescriptor,
  table: TableDescriptor,
  filter: RowFilter,
): SqlStatement {
  void service; // same signature as compileDelete
  const params = new Params();
  const keyColumns = outputColumns(table, resourceComputed(table)).filter((c) => table.primaryKey.includes(c.name));
  const where = filterCondition(table, filter, params);
  const returning = `RETURNING ${rowJson(columnEntries(keyColumns, "t0"))}::text AS "j"`;
  if (table.softDeleteColumn === undefined)
    return params.statement(`DELETE FROM ${tableSql(table)} AS "t0" WHERE ${where} ${returning}`);
  const marker = columnSqlName(findColumn(table, table.softDeleteColumn));
  return params.statement(
    `UPDATE ${tableSql(table)} AS "t0" SET ${marker} = now() WHERE ${where} AND "t0".${marker} IS NULL ${returning}`,
  );
}
