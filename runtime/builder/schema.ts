/**
 * The type-level description of a schema that the query builder is generic
 * over. The Hono backend emits one per schema (`<Package>Schema` in the
 * generated `service.ts`); hidden columns are absent from it, so no builder
 * call can spell one (spec: guarantee 2). Decisions in
 * docs/decisions/0602-query-builder.md.
 */
import type { ServiceDescriptor, ValueKind } from "../descriptor.js";

/** One column as the builder's types see it. */
export interface ColumnMeta {
  /** The value's TypeScript type as a row carries it (the JSON form), without `null`; `E[]` on an array column. */
  type: unknown;
  nullable: boolean;
  /** The runtime value kind (element kind on an array column); chooses the operators. */
  kind: ValueKind;
  array: boolean;
  /** Declared Filterable (informative: in-process queries may filter on any non-computed column). */
  filterable: boolean;
  /** Declared Sortable: only these are accepted by `orderBy`. */
  sortable: boolean;
  /** A computed column: selectable, never filtered or sorted. */
  computed: boolean;
}

/** The capabilities a {@link ColumnType} can be given, as flags. */
export type ColumnFlag = "nullable" | "array" | "filterable" | "sortable" | "computed";

/**
 * A {@link ColumnMeta} written compactly, as generated schema types do:
 * `title: ColumnType<string, "text", "filterable" | "sortable">` (value type,
 * kind, then the flags that are true).
 */
export type ColumnType<T, K extends ValueKind, F extends ColumnFlag = never> = {
  type: T;
  kind: K;
  nullable: "nullable" extends F ? true : false;
  array: "array" extends F ? true : false;
  filterable: "filterable" extends F ? true : false;
  sortable: "sortable" extends F ? true : false;
  computed: "computed" extends F ? true : false;
};

/** One expandable relation: its target table and whether the target row or a collection comes back. */
export interface RelationMeta {
  target: string;
  kind: "forward" | "inverse";
}

/** One table: its columns, its expandable relations and its primary key. */
export interface TableMeta {
  /** The primary-key column names (a union for a composite key). */
  key: string;
  /** True when the key is one column, so rows can be addressed with `byKey`. */
  singleKey: boolean;
  columns: { [column: string]: ColumnMeta };
  relations: { [relation: string]: RelationMeta };
}

/**
 * What a schema type must look like: every member a {@link TableMeta}. Written
 * as a mapped constraint so that a generated `interface` (which has no index
 * signature) satisfies it.
 */
export type SchemaShape<S> = { [T in keyof S]: TableMeta };

/** The schema type used when none is known: any table, any column, values unchecked by the compiler. */
export interface UntypedSchema {
  [table: string]: TableMeta;
}

/**
 * A service descriptor carrying its schema type, so `createQueryBuilder(service, …)`
 * infers it. The member is never present at run time; only its type is read.
 */
export type TypedService<S> = ServiceDescriptor & { readonly "~schema"?: S };
