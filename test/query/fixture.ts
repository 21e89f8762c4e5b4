/**
 * Hand-written descriptors for the request-decoding tests: a film-like
 * table with one column of each kind and capability, a composite-key link
 * table, and a table keyed by uuid.
 */
import type { ColumnDescriptor, ServiceDescriptor, TableDescriptor } from "../../runtime/descriptor.js";
import { DEFAULT_LIMITS } from "../../runtime/descriptor.js";
import { parseListQuery } from "../../runtime/query/index.js";
import type { ListQuery } from "../../runtime/query/index.js";
import { ProblemError, type ProblemItem } from "../../runtime/problem.js";

/** A column with every capability off; `over` sets what a test needs. */
export function column(
  name: string,
  sqlType: string,
  kind: ColumnDescriptor["kind"],
  over: Partial<ColumnDescriptor> = {},
): ColumnDescriptor {
  return {
    name,
    sqlType,
    kind,
    array: false,
    nullable: false,
    hasDefault: false,
    filterable: false,
    sortable: false,
    searchable: false,
    hidden: false,
    readOnly: false,
    immutable: false,
    softDelete: false,
    ...over,
  };
}

export const RATINGS = ["G", "PG", "PG-13", "R", "NC-17"];

export const film: TableDescriptor = {
  name: "film",
  primaryKey: ["film_id"],
  scoped: false,
  columns: [
    column("film_id", "integer", "integer", { filterable: true, sortable: true, hasDefault: true, readOnly: true }),
    column("title", "text", "text", { filterable: true, sortable: true, searchable: true }),
    column("description", "text", "text", { nullable: true, searchable: true }),
    column("release_year", "year", "integer", { nullable: true, filterable: true, sortable: true }),
    column("length", "smallint", "integer", { nullable: true, filterable: true, sortable: true, nulls: "last" }),
    column("rental_rate", "numeric(4,2)", "numeric", { filterable: true, sortable: true, hasDefault: true }),
    column("rating", "mpaa_rating", "enum", {
      enumValues: RATINGS,
      nullable: true,
      filterable: true,
      sortable: true,
      hasDefault: true,
    }),
    column("special_features", "text[]", "text", { array: true, nullable: true, filterable: true }),
    column("tags", "text[]", "text", { array: true, filterable: true, hasDefault: true }),
    column("attrs", "jsonb", "jsonb", { nullable: true, filterable: true }),
    column("release_date", "date", "date", { nullable: true, filterable: true, sortable: true }),
    column("last_update", "timestamptz", "timestamptz", {
      filterable: true,
      sortable: true,
      hasDefault: true,
      readOnly: true,
    }),
    column("created_at", "timestamptz", "timestamptz", { filterable: true, hasDefault: true, immutable: true }),
    column("shot_at", "timestamp", "timestamp", { nullable: true, filterable: true }),
    column("language_id", "smallint", "integer", { filterable: true }),
    column("external_id", "uuid", "uuid", { nullable: true, filterable: true }),
    column("active", "boolean", "boolean", { filterable: true, hasDefault: true }),
    column("views", "bigint", "bigint", { filterable: true, sortable: true, hasDefault: true }),
    column("score", "double precision", "float", { nullable: true, filterable: true }),
    column("starts", "time", "time", { nullable: true, filterable: true }),
    column("poster", "bytea", "bytea", { nullable: true, filterable: true }),
    column("secret", "text", "text", {
      hidden: true,
      filterable: true,
      sortable: true,
      searchable: true,
      nullable: true,
    }),
    column("summary", "text", "text", { computed: "title || ' ' || coalesce(description, '')", searchable: true }),
    column("internal_note", "text", "text", { computed: "'x'", filterable: true, sortable: true }),
  ],
  relations: [
    {
      name: "language",
      kind: "forward",
      target: "language",
      column: "language_id",
      targetColumn: "language_id",
      expandable: true,
      order: [],
    },
    {
      name: "original_language",
      kind: "forward",
      target: "language",
      column: "original_language_id",
      targetColumn: "language_id",
      expandable: false,
      order: [],
    },
    {
      name: "cast",
      kind: "inverse",
      target: "film_actor",
      column: "film_id",
      targetColumn: "film_id",
      expandable: true,
      order: [{ column: "actor_id", descending: false }],
      limit: 20,
    },
  ],
  resource: {
    path: "/films",
    ops: { list: true, read: true, create: true, update: true, delete: true },
    defaultSort: [{ column: "title", descending: false }],
    limits: { defaultPageSize: 20, maxPageSize: 100, maxFilters: 6, maxSortTerms: 3, maxOffset: 1000, maxBatch: 50 },
    security: [],
    disableTransactions: false,
    computed: ["summary"],
  },
};

export const filmActor: TableDescriptor = {
  name: "film_actor",
  primaryKey: ["actor_id", "film_id"],
  scoped: false,
  columns: [
    column("actor_id", "integer", "integer", { filterable: true, sortable: true }),
    column("film_id", "integer", "integer", { filterable: true, sortable: true }),
    column("last_update", "timestamptz", "timestamptz", { sortable: true, hasDefault: true, readOnly: true }),
  ],
  relations: [
    {
      name: "film",
      kind: "forward",
      target: "film",
      column: "film_id",
      targetColumn: "film_id",
      expandable: false,
      order: [],
    },
  ],
  resource: {
    path: "/film_actors",
    ops: { list: true, read: false, create: false, update: false, delete: false },
    defaultSort: [],
    limits: { ...DEFAULT_LIMITS },
    security: [],
    disableTransactions: false,
    computed: [],
  },
};

export const language: TableDescriptor = {
  name: "language",
  primaryKey: ["language_id"],
  scoped: false,
  columns: [
    column("language_id", "smallint", "integer", { sortable: true, hasDefault: true, readOnly: true }),
    column("name", "character(20)", "text", { filterable: true, sortable: true }),
  ],
  relations: [],
};

export const device: TableDescriptor = {
  name: "device",
  primaryKey: ["device_key"],
  scoped: false,
  columns: [column("device_key", "uuid", "uuid", { hidden: true }), column("label", "text", "text")],
  relations: [],
};

export const service: ServiceDescriptor = {
  title: "Films",
  version: "1.0.0",
  securitySchemes: [],
  tables: [film, filmActor, language, device],
};

/** Parses a list query on `table` (film by default) from a query string or name/value pairs. */
export function list(query: string | [string, string][], table: TableDescriptor = film): ListQuery {
  return parseListQuery(service, table, new URLSearchParams(query));
}

/**
 * Runs `fn`, which must throw a 400 ProblemError, and returns its problem
 * items; fails the test otherwise.
 */
export function problems(fn: () => unknown): ProblemItem[] {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ProblemError)) throw e;
    if (e.status !== 400) throw new Error(`expected status 400, got ${e.status}`);
    return e.errors;
  }
  throw new Error("expected a ProblemError, nothing was thrown");
}

/** The single problem item `fn` is refused with (fails when there are several). */
export function problem(fn: () => unknown): ProblemItem {
  const items = problems(fn);
  if (items.length !== 1) throw new Error(`expected one problem, got ${items.length}: ${JSON.stringify(items)}`);
  return items[0];
}

/** The filter predicate of a list query. */
export function where(query: string | [string, string][], table: TableDescriptor = film): ListQuery["where"] {
  return list(query, table).where;
}

/** The filterable columns of `film`, in declaration order (what `allowed` must list). */
export const FILM_FILTERABLE = [
  "film_id",
  "title",
  "release_year",
  "length",
  "rental_rate",
  "rating",
  "special_features",
  "tags",
  "attrs",
  "release_date",
  "last_update",
  "created_at",
  "shot_at",
  "language_id",
  "external_id",
  "active",
  "views",
  "score",
  "starts",
  "poster",
];
