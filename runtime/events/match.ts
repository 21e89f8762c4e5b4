/**
 * The statement matching captured changes against subscriptions, built by
 * the list's own compiler (docs/decisions/1337-change-feed.md): each
 * outbox row's images are turned back into rows of the table
 * (`jsonb_populate_record`) and each subscription's predicate (filters,
 * scope, search) is evaluated on them exactly as a list evaluates it, every
 * value a bind parameter; the row object is built by the same builder a
 * read uses, so hidden columns are never selected and `select` applies.
 * Besides the verdicts, each change says whether it marked or restored a
 * soft-deleted row and, per projection, whether an update left what that
 * projection shows as it was (docs/decisions/1337-change-feed.md, "What an
 * update is to each subscriber").
 */
import type { TableDescriptor } from "../descriptor.js";
import type { SqlStatement } from "../exec/executor.js";
import type { Predicate } from "../predicate.js";
import { Params } from "../sql/bind.js";
import { findColumn } from "../sql/column.js";
import { compileFilter } from "../sql/filter.js";
import { columnSqlName, tableSql } from "../sql/ident.js";
import { tableRow } from "../sql/output.js";
import { EVENTS_TABLE, type OutboxOp } from "./outbox.js";
import type { Position } from "./position.js";

/** What one subscription selects: the list grammar's filters and projection, and the subscriber's scope. */
export interface Subscription {
  where?: Predicate;
  search?: string;
  scope?: Predicate;
  /** Projected columns (primary key included); absent means every visible column. */
  select?: string[];
}

/** One captured change as the match statement reads it, the subscriptions' verdicts included. */
export interface MatchedChange {
  position: Position;
  op: OutboxOp;
  /** Per subscription, in the order given: whether the row after the change matches (false on a delete). */
  after: boolean[];
  /** Per subscription: whether the row before the change matched (false on a create). */
  before: boolean[];
  /** Per distinct projection, in the order of `projections`: the row object after the change, JSON text; null on a delete. */
  rows: (string | null)[];
  /** The key of the row (before the change when there is a before), as a JSON object. */
  key: string;
  /**
   * On a table with a `@soft_delete` column, what an update did to the mark: `marked`, the old image
   * was unmarked and the new one is marked (a soft delete); `restored`, the other way round; absent
   * otherwise (and for every create and delete).
   */
  soft?: "marked" | "restored";
  /**
   * Per distinct projection: true when the change is an update and that projection of the old image is
   * the very text of the new one's (only columns it does not show changed); false otherwise.
   */
  same: boolean[];
}

/** The distinct projections of `subs`, in first-seen order, and each subscription's index into them. */
export function projections(subs: readonly Subscription[]): { selects: (string[] | undefined)[]; of: number[] } {
  const keys = new Map<string, number>();
  const selects: (string[] | undefined)[] = [];
  const of = subs.map((s) => {
    const k = s.select === undefined ? "*" : s.select.join(",");
    let i = keys.get(k);
    if (i === undefined) {
      i = selects.length;
      keys.set(k, i);
      selects.push(s.select);
    }
    return i;
  });
  return { selects, of };
}

/**
 * What makes two subscriptions of `table` share one verdict: the condition
 * each compiles to, its bind parameters as the column codecs encode them
 * (runtime/sql/bind.ts), and the projection. Built from the compiled text,
 * never from the predicate tree, whose decoded values (a `bigint`, a
 * `Date`) have no JSON form of their own and would key equal conditions
 * apart when spelled differently (docs/decisions/1358-values-through-codecs.md).
 * @throws a plain Error for a predicate the table cannot compile (as {@link compileMatch} would)
 */
export function subscriptionKey(table: TableDescriptor, sub: Subscription): string {
  const params = new Params();
  const condition = compileFilter(table, "t0", params, { where: sub.where, scope: sub.scope, search: sub.search });
  return JSON.stringify([table.name, condition ?? null, params.values, sub.select ?? null]);
}

/**
 * `(SELECT <expr> FROM jsonb_populate_record(NULL::<table>, e.<image>) AS "t0")`,
 * NULL when the image is absent (a create has no before, a delete no after):
 * a subquery, so a raw scope predicate's bare column names mean the row's
 * columns, never the outbox's.
 */
function onImage(table: TableDescriptor, image: "old" | "new" | "key", expr: string): string {
  const source = image === "key" ? `coalesce("e"."old", "e"."new")` : `"e"."${image}"`;
  const sub = `(SELECT ${expr} FROM jsonb_populate_record(NULL::${tableSql(table)}, ${source}) AS "t0")`;
  return image === "key" ? sub : `CASE WHEN "e"."${image}" IS NULL THEN NULL ELSE ${sub} END`;
}

/**
 * The statement reading the changes of `table` after position `after` up
 * to and including `upTo`, in position order, at most `limit` of them (a
 * literal, decided by the caller), each with every subscription's verdict
 * before and after the change, the row object of each projection and,
 * for an update, whether each projection's object is the same on both
 * images. Columns: `x`, `i` (the position), `op`, `mn`, `mo` (boolean
 * arrays as text, `{t,f}`), `d0`…, `k`, `s0`… (`true` when projection 0
 * did not change), `sd` (`marked`, `restored` or NULL).
 * @throws a plain Error for a predicate the table cannot compile (as a list would)
 */
export function compileMatch(
  table: TableDescriptor,
  subs: readonly Subscription[],
  after: Position,
  upTo: Position,
  limit: number,
): SqlStatement {
  const params = new Params();
  // The table and the range first ($1 to $5): a caller keeping the statement for the same subscriptions
  // replaces just these ({@link withRange}).
  const tbl = params.add(table.name);
  const from = `${params.add(after.xid)}::xid8, ${params.add(after.id)}::bigint`;
  const to = `${params.add(upTo.xid)}::xid8, ${params.add(upTo.id)}::bigint`;
  // Compiled once: both images are aliased "t0", so one text and one set of bind parameters judges both.
  const each = subs.map((s) => {
    const c = compileFilter(table, "t0", params, { where: s.where, scope: s.scope, search: s.search });
    return c === undefined ? "TRUE" : `coalesce(${c}, FALSE)`;
  });
  const verdicts = `ARRAY[${each.join(", ")}]::boolean[]`;
  const mn = onImage(table, "new", verdicts);
  const mo = onImage(table, "old", verdicts);
  const selects = projections(subs).selects;
  const rows = selects.map(
    (select, i) => `${onImage(table, "new", `${tableRow(table, "t0", select).json}::text`)} AS "d${i}"`,
  );
  // The old image's object, built for updates only, is compared with the new one's in the outer query
  // rather than sent: a subscriber is sent the text, so the same text is nothing new to it.
  const olds = selects.map(
    (select, i) =>
      `CASE WHEN "e"."op" = 'u' THEN ${onImage(table, "old", `${tableRow(table, "t0", select).json}::text`)} END AS "o${i}"`,
  );
  const key = onImage(table, "key", `${tableRow(table, "t0", []).json}::text`);
  // The mark as the reads' own filter tests it (runtime/hooks/scope.ts): unmarked is `<marker> IS NULL`.
  let soft = "NULL::text";
  if (table.softDeleteColumn !== undefined) {
    const unmarked = `"t0".${columnSqlName(findColumn(table, table.softDeleteColumn))} IS NULL`;
    const was = onImage(table, "old", unmarked);
    const is = onImage(table, "new", unmarked);
    soft = `CASE WHEN "e"."op" = 'u' THEN CASE WHEN ${was} AND NOT ${is} THEN 'marked' WHEN ${is} AND NOT ${was} THEN 'restored' END END`;
  }
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`limit ${limit} is not a positive integer`);
  const inner =
    `SELECT "e"."xid" AS "xr", "e"."id" AS "ir", "e"."xid"::text AS "x", "e"."id"::text AS "i", "e"."op"::text AS "op", ` +
    `${mn}::text AS "mn", ${mo}::text AS "mo", ${rows.join(", ")}, ${olds.join(", ")}, ${key} AS "k", ${soft} AS "sd" ` +
    `FROM ${EVENTS_TABLE} AS "e" ` +
    `WHERE "e"."tbl" = ${tbl} AND ("e"."xid", "e"."id") > (${from}) AND ("e"."xid", "e"."id") <= (${to}) ` +
    `ORDER BY "e"."xid", "e"."id" LIMIT ${limit}`;
  const outer = selects.map(
    (_, i) => `, "m"."d${i}", ("m"."o${i}" IS NOT NULL AND "m"."o${i}" = "m"."d${i}")::text AS "s${i}"`,
  );
  return params.statement(
    `SELECT "m"."x", "m"."i", "m"."op", "m"."mn", "m"."mo"${outer.join("")}, "m"."k", "m"."sd" ` +
      `FROM (${inner}) AS "m" ORDER BY "m"."xr", "m"."ir"`,
  );
}

/** {@link compileMatch}'s statement for another range: the same text and subscriptions' values, `$2` to `$5` replaced. */
export function withRange(stmt: SqlStatement, after: Position, upTo: Position): SqlStatement {
  return {
    text: stmt.text,
    values: [stmt.values[0]!, after.xid, after.id, upTo.xid, upTo.id, ...stmt.values.slice(5)],
  };
}

/** `{t,f,NULL}` (a boolean array's text form) as booleans; NULL and absent are false. */
function booleans(text: string | null | undefined, n: number): boolean[] {
  const out = new Array<boolean>(n).fill(false);
  if (!text) return out;
  const items = text.slice(1, -1).split(",");
  for (let i = 0; i < n && i < items.length; i++) out[i] = items[i] === "t";
  return out;
}

/** Reads one row of {@link compileMatch}'s statement for `n` subscriptions and `p` projections. */
export function readMatch(row: Readonly<Record<string, string | null>>, n: number, p: number): MatchedChange {
  const rows: (string | null)[] = [];
  const same: boolean[] = [];
  for (let i = 0; i < p; i++) {
    rows.push(row[`d${i}`] ?? null);
    same.push(row[`s${i}`] === "true");
  }
  const soft = row.sd === "marked" || row.sd === "restored" ? row.sd : undefined;
  return {
    position: { xid: row.x!, id: row.i! },
    op: row.op as OutboxOp,
    after: booleans(row.mn, n),
    before: booleans(row.mo, n),
    rows,
    key: row.k!,
    ...(soft ? { soft } : {}),
    same,
  };
}
