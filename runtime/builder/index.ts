/**
 * The in-process query builder (docs/decisions/0602-query-builder.md): queries written in TypeScript
 * that go through the same hooks, predicate tree, SQL compiler and bind
 * discipline as an HTTP request, with types that narrow by column type.
 *
 * ```ts
 * import { createQueryBuilder } from "resc/runtime";
 * import { service } from "./generated/tracker/index.js";
 * const q = createQueryBuilder(service, { db, hooks, data: { orgId } });
 * const rows = await q.from("tasks").where("status", "in", ["todo", "doing"])
 *   .orderBy("-created_at").select("id", "title").limit(10).all();
 * ```
 */
import type { Executor } from "../exec/executor.js";
import type { HookData, Hooks } from "../hooks.js";
import { refuse } from "./condition.js";
import type { Principal } from "../auth/principal.js";
import { withDeclaredRules } from "../access/hooks.js";
import { TableQuery, type QueryRuntime } from "./query.js";
import type { SchemaShape, TypedService, UntypedSchema } from "./schema.js";
import type { TableName } from "./types.js";

/** Options of {@link createQueryBuilder}. */
export interface QueryBuilderOptions {
  /** Where the queries run: the service's executor, or a transaction handle. */
  db: Executor;
  /** The hooks of the service, as given to `mountService`; BeforeQuery hooks confine every query. */
  hooks?: Hooks;
  /** What hooks receive as `ctx.data` (for example `{ orgId }`); `ctx.http` is absent in process. */
  data?: object;
  /**
   * Lets queries read tables declaring `@@scoped` that have no BeforeQuery
   * hook (trusted maintenance code, a login lookup across tenants), and see
   * soft-deleted rows (docs/decisions/1367-access-rules.md). Registered hooks
   * still run. Default false: such a query throws a `HookError` instead of
   * reading unconfined rows.
   */
  unconfined?: boolean;
  /**
   * Who the queries are for, under declared access rules (docs/decisions/1367-access-rules.md): they
   * see what that principal may list. Without one, a service with an `auth` block confines every
   * query to nothing, unless `unconfined` (trusted code, which the declared rules then leave alone).
   */
  principal?: Principal;
}

/** Starts queries on the tables of schema `S`. */
export interface QueryBuilder<S> {
  /**
   * A query on `table`, returning every visible column until `select`
   * narrows it.
   * @throws ProblemError 400 when the schema has no such table
   */
  from<T extends TableName<S>>(table: T): TableQuery<S, T>;
  /** The same builder with other hook data (for example per request). */
  withData(data: object): QueryBuilder<S>;
  /** The same builder for another principal (docs/decisions/1367-access-rules.md). */
  withPrincipal(principal: Principal): QueryBuilder<S>;
}

/**
 * Creates a query builder over `service`. The schema type comes from the
 * generated `service` constant (`TypedService<TrackerSchema>`), or is given
 * explicitly: `createQueryBuilder<TrackerSchema>(descriptor, options)`;
 * without either, names and values are only checked at run time.
 */
export function createQueryBuilder<S extends SchemaShape<S> = UntypedSchema>(
  service: TypedService<S>,
  options: QueryBuilderOptions,
): QueryBuilder<S> {
  const rt: QueryRuntime = {
    service,
    db: options.db,
    hooks:
      options.unconfined && options.principal === undefined
        ? (options.hooks ?? {})
        : withDeclaredRules(service, options.hooks ?? {}),
    unconfined: options.unconfined ?? false,
  };
  if (options.data !== undefined) rt.data = options.data as HookData;
  if (options.principal !== undefined) rt.principal = options.principal;
  return {
    from<T extends TableName<S>>(name: T): TableQuery<S, T> {
      const table = service.tables.find((t) => t.name === name);
      if (!table)
        refuse(
          "from",
          `unknown table ${String(name)}`,
          service.tables.map((t) => t.name),
        );
      return new TableQuery<S, T>(rt, { table, where: [], sort: [], expand: [], offset: 0 });
    },
    withData(data: object): QueryBuilder<S> {
      return createQueryBuilder<S>(service, { ...options, data });
    },
    withPrincipal(principal: Principal): QueryBuilder<S> {
      return createQueryBuilder<S>(service, { ...options, principal });
    },
  };
}

export { TableQuery, type WhereBuilder } from "./query.js";
export type {
  ColumnFlag,
  ColumnMeta,
  ColumnType,
  RelationMeta,
  TableMeta,
  SchemaShape,
  TypedService,
  UntypedSchema,
} from "./schema.js";
export type * from "./types.js";
