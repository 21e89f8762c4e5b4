/**
 * `TableQuery`: one query on one table, built step by step and run with
 * `all`, `first`, `count` or `byKey`. It builds the same `ListQuery` and
 * predicate tree an HTTP list request does, takes the same BeforeQuery
 * hooks (runtime/hooks/scope.ts) and compiles through the same SQL compiler
 * (runtime/sql), so values are bind parameters and rows have the JSON form
 * of a response (docs/decisions/0602-query-builder.md).
 */
import type { ServiceDescriptor, SortTerm, TableDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { Principal } from "../auth/principal.js";
import type { HookData, HookOperation, Hooks } from "../hooks.js";
import { HookError } from "../hook-error.js";
import { confiningDeclarations } from "../hooks/registration.js";
import { confine, expansionScopes, type HookBase } from "../hooks/scope.js";
import { and, cmp, not, or, type Predicate } from "../predicate.js";
import type { ListQuery } from "../query/types.js";
import { vocabulary } from "../query/vocabulary.js";
import { compileList } from "../sql/list.js";
import { encodeRow } from "../sql/members.js";
import { withKeyTiebreak } from "../sql/order.js";
import { comparison, decodeElement, refuse } from "./condition.js";
import type {
  ColumnName,
  Column,
  ExpansionsOf,
  KeyColumn,
  KeyInput,
  OperatorOf,
  RelationName,
  RowOf,
  Simplify,
  SortSpec,
  TableName,
  ValueArgs,
  WhereColumn,
} from "./types.js";

/** What every query of one builder shares. */
export interface QueryRuntime {
  service: ServiceDescriptor;
  db: Executor;
  hooks: Hooks;
  data?: HookData;
  /** The principal queries are for (docs/decisions/1367-access-rules.md). */
  principal?: Principal;
  /** Reads tables that need a BeforeQuery hook even when none is registered. */
  unconfined: boolean;
}

/** The clauses gathered so far; every method returns a copy with one more. */
interface QueryState {
  table: TableDescriptor;
  where: Predicate[];
  sort: SortTerm[];
  select?: string[];
  expand: string[];
  search?: string;
  limit?: number;
  offset: number;
}

/**
 * Builds conditions for `where(w => …)`: `w(column, op, value)` is one
 * comparison, typed like `where`'s; `w.and`, `w.or` and `w.not` combine
 * them (an empty `or` matches nothing, an empty `and` everything).
 */
export interface WhereBuilder<S, T extends TableName<S>> {
  <K extends WhereColumn<S, T> & ColumnName<S, T>, O extends OperatorOf<Column<S, T, K>>>(
    column: K,
    op: O,
    ...value: ValueArgs<Column<S, T, K>, O>
  ): Predicate;
  and(...conditions: Predicate[]): Predicate;
  or(...conditions: Predicate[]): Predicate;
  not(condition: Predicate): Predicate;
}

/** No per-page ceiling in process: a query without `limit` reads every row (still bound, never spliced). */
const UNLIMITED = Number.MAX_SAFE_INTEGER - 1;

function whereBuilder<S, T extends TableName<S>>(table: TableDescriptor): WhereBuilder<S, T> {
  const w = (column: string, op: string, ...value: unknown[]): Predicate => comparison(table, column, op, value);
  return Object.assign(w, { and, or, not }) as unknown as WhereBuilder<S, T>;
}

function nonNegativeInteger(n: number, location: string): number {
  if (!Number.isSafeInteger(n) || n < 0) refuse(location, `${location} takes a non-negative integer`);
  return n;
}

/**
 * A query on table `T` of schema `S` returning rows with the columns `Sel`
 * plus the expansions `X`. Immutable: every method returns a new query, so
 * a partial query can be shared and extended.
 */
export class TableQuery<S, T extends TableName<S>, Sel extends ColumnName<S, T> = ColumnName<S, T>, X = unknown> {
  /** @internal Use `QueryBuilder.from`. */
  constructor(
    private readonly rt: QueryRuntime,
    private readonly state: QueryState,
  ) {}

  private with<Sel2 extends ColumnName<S, T> = Sel, X2 = X>(change: Partial<QueryState>): TableQuery<S, T, Sel2, X2> {
    return new TableQuery<S, T, Sel2, X2>(this.rt, { ...this.state, ...change });
  }

  /**
   * Adds a condition; several `where` calls conjoin. Any column that is
   * neither hidden nor computed may be named (in-process code is trusted
   * with more than the Filterable set); the operator must suit the column's
   * type and the value its operator.
   * @throws ProblemError 400 `invalid-query` for a name, operator or value
   *   the column does not take (for untyped callers; typed ones cannot write it)
   */
  where<K extends WhereColumn<S, T> & ColumnName<S, T>, O extends OperatorOf<Column<S, T, K>>>(
    column: K,
    op: O,
    ...value: ValueArgs<Column<S, T, K>, O>
  ): TableQuery<S, T, Sel, X>;
  /** Adds a condition built from comparisons with `and`, `or` and `not`. */
  where(build: (w: WhereBuilder<S, T>) => Predicate): TableQuery<S, T, Sel, X>;
  where(
    first: string | ((w: WhereBuilder<S, T>) => Predicate),
    op?: string,
    ...value: unknown[]
  ): TableQuery<S, T, Sel, X> {
    const p =
      typeof first === "function"
        ? first(whereBuilder<S, T>(this.state.table))
        : comparison(this.state.table, first, op ?? "", value);
    return this.with({ where: [...this.state.where, p] });
  }

  /**
   * Appends sort terms, most significant first: `"title"` ascending,
   * `"-created_at"` descending; only Sortable columns. Without any, the
   * resource's DefaultSort applies, else the primary key; the key is always
   * the final tiebreak (spec: Sorting).
   * @throws ProblemError 400 for a column that is not sortable
   */
  orderBy(...terms: SortSpec<S, T>[]): TableQuery<S, T, Sel, X> {
    const vocab = vocabulary(this.state.table);
    const added = terms.map((term: string) => {
      const descending = term.startsWith("-");
      const column = descending ? term.slice(1) : term;
      if (!vocab.sortable.includes(column)) refuse("orderBy", `column ${column} is not sortable`, vocab.sortable);
      return { column, descending };
    });
    return this.with({ sort: [...this.state.sort, ...added] });
  }

  /**
   * Returns only the named columns, plus the primary key, which is always
   * returned (spec: Projection). A later `select` replaces an earlier one.
   * A computed column is computed only when selected (or when nothing is).
   * @throws ProblemError 400 for a column that is not selectable
   */
  select<K extends ColumnName<S, T>>(...columns: K[]): TableQuery<S, T, K | KeyColumn<S, T>, X> {
    const { table } = this.state;
    const vocab = vocabulary(table);
    for (const c of columns as string[]) {
      if (!vocab.visible.has(c)) refuse("select", `unknown column ${c} of ${table.name}`, vocab.selectable);
    }
    const chosen = [...new Set(columns as string[])];
    return this.with<K | KeyColumn<S, T>>({
      select: [...table.primaryKey.filter((k) => !chosen.includes(k)), ...chosen],
    });
  }

  /**
   * Adds each named relation to every row, under its name: the target row
   * (or null) for a forward relation, `{items, has_more}` for an inverse
   * one (spec: Expansion). The target's BeforeQuery hook confines it.
   * @throws ProblemError 400 for a relation that is not expandable
   */
  expand<R extends RelationName<S, T>>(...relations: R[]): TableQuery<S, T, Sel, X & ExpansionsOf<S, T, R>> {
    const vocab = vocabulary(this.state.table);
    const next = [...this.state.expand];
    for (const r of relations as string[]) {
      if (!vocab.expandable.includes(r)) refuse("expand", `${r} is not an expandable relation`, vocab.expandable);
      if (!next.includes(r)) next.push(r);
    }
    return this.with<Sel, X & ExpansionsOf<S, T, R>>({ expand: next });
  }

  /**
   * Case-insensitive substring search across the Searchable columns (spec:
   * Search); an empty text searches nothing.
   * @throws ProblemError 400 when the table has no searchable column
   */
  search(text: string): TableQuery<S, T, Sel, X> {
    if (vocabulary(this.state.table).searchable.length === 0) {
      refuse("search", `${this.state.table.name} has no searchable column`);
    }
    return this.with(text === "" ? { search: undefined } : { search: text });
  }

  /** Reads at most `n` rows (no ceiling applies in process). */
  limit(n: number): TableQuery<S, T, Sel, X> {
    return this.with({ limit: nonNegativeInteger(n, "limit") });
  }

  /** Skips the first `n` rows of the ordering. */
  offset(n: number): TableQuery<S, T, Sel, X> {
    return this.with({ offset: nonNegativeInteger(n, "offset") });
  }

  /**
   * The matching rows in order.
   * @throws HookError when a table read needs a BeforeQuery hook that is not
   *   registered, or a hook's predicate does not fit; driver errors as is
   */
  async all(): Promise<Simplify<RowOf<S, T, Sel> & X>[]> {
    return this.rows("list", this.state);
  }

  /** The first matching row, or undefined. */
  async first(): Promise<Simplify<RowOf<S, T, Sel> & X> | undefined> {
    const [row] = await this.rows("list", { ...this.state, limit: 1 });
    return row;
  }

  /** How many rows match, whatever `limit` and `offset` say (like `count=exact`'s `total`). */
  async count(): Promise<number> {
    const { count } = await this.compile("list", this.state, true);
    const r = await this.rt.db.query(count!);
    return Number(r.rows[0]?.n ?? 0);
  }

  /**
   * The row whose primary key is `key`, if it exists and the BeforeQuery
   * hook lets it be read (hook operation `read`); with this query's
   * conditions, projection and expansions applied.
   * @throws ProblemError 400 when the table's key is not one column or `key` does not decode for it
   */
  async byKey(key: KeyInput<S, T>): Promise<Simplify<RowOf<S, T, Sel> & X> | undefined> {
    const { table } = this.state;
    if (table.primaryKey.length !== 1) refuse("byKey", `${table.name} has a composite primary key`);
    const col = table.columns.find((c) => c.name === table.primaryKey[0])!;
    // Decoded here rather than by `where`: the key column may be hidden, and a refusal must not name it.
    const keyCondition = cmp(col.name, "eq", decodeElement(col, key, "byKey", "the key"));
    const [row] = await this.rows("read", {
      ...this.state,
      where: [...this.state.where, keyCondition],
      limit: 1,
      offset: 0,
    });
    return row;
  }

  private async rows(operation: HookOperation, state: QueryState): Promise<Simplify<RowOf<S, T, Sel> & X>[]> {
    const { rows } = await this.compile(operation, state, false);
    const r = await this.rt.db.query(rows);
    const limit = state.limit ?? UNLIMITED;
    return r.rows.slice(0, limit).map((x) => JSON.parse(encodeRow(x, rows.layout)) as Simplify<RowOf<S, T, Sel> & X>);
  }

  /** Hook predicates, then the statements; the same steps as `runtime/http/list.ts`. */
  private async compile(operation: HookOperation, state: QueryState, count: boolean) {
    const { service, hooks } = this.rt;
    const { table } = state;
    this.requireConfinement(table, state.expand);
    const base: HookBase = { db: this.rt.db };
    if (this.rt.data !== undefined) base.data = this.rt.data;
    if (this.rt.principal !== undefined) base.principal = this.rt.principal;
    // Unconfined (trusted) code sees soft-deleted rows too: restoring one needs to (decision 1367).
    const live = !this.rt.unconfined;
    const scope = await confine(hooks, table, operation, base, live);
    const scopeFor = await expansionScopes(hooks, service, table, state.expand, base, live);
    const q: ListQuery = {
      sort: withKeyTiebreak(table, state.sort.length > 0 ? state.sort : (table.resource?.defaultSort ?? [])),
      sortRequested: state.sort.length > 0,
      expand: state.expand,
      page: 1,
      perPage: state.limit ?? UNLIMITED,
      offset: state.offset,
      count,
    };
    if (state.where.length > 0) q.where = and(...state.where);
    if (state.search !== undefined) q.search = state.search;
    if (state.select !== undefined) q.select = state.select;
    return compileList(service, table, q, scope, { scopeFor });
  }

  /**
   * The registration rule of `mountService`, applied per query: a table read
   * (directly or by expansion) that declares `@@scoped` needs a BeforeQuery
   * hook, unless the builder was made `unconfined`.
   */
  private requireConfinement(table: TableDescriptor, expand: readonly string[]): void {
    if (this.rt.unconfined) return;
    const targets = [table];
    for (const name of expand) {
      const rel = table.relations.find((r) => r.name === name);
      const t = rel && this.rt.service.tables.find((x) => x.name === rel.target);
      if (t) targets.push(t);
    }
    for (const t of targets) {
      const needs = confiningDeclarations(t);
      if (needs.length > 0 && !this.rt.hooks.beforeQuery?.[t.name]) {
        throw new HookError(
          "beforeQuery",
          t.name,
          `none is registered and ${needs.join(" and ")} requires one (or create the builder with unconfined: true)`,
        );
      }
    }
  }
}
