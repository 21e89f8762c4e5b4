/**
 * The parsed form of a list request (spec: Query grammar), produced by
 * `parseListQuery` and consumed by the SQL compiler. Everything in it is
 * validated against the descriptor: column and relation names are known and
 * allowed, values are decoded for their column.
 */
import type { SortTerm } from "../descriptor.js";
import type { Predicate } from "../predicate.js";

/** A validated list query. */
export interface ListQuery {
  /** Conjunction of the URL filters and the `?filter=` JSON tree; absent when none. */
  where?: Predicate;
  /** `?search=` text as given (escaped by the SQL compiler). */
  search?: string;
  /** Full ordering: the request's `sort` or the DefaultSort or the key, then the primary-key tiebreak. */
  sort: SortTerm[];
  /** Whether `sort` came from the request (true) or the default (false). */
  sortRequested: boolean;
  /** Projected columns in request order (primary key included); absent means every visible column. */
  select?: string[];
  /** Relation names to expand, deduplicated, in request order. */
  expand: string[];
  /** 1-based page number (1 when paging by offset or cursor). */
  page: number;
  perPage: number;
  /** Rows to skip: `offset` when given, else `(page - 1) * perPage`. */
  offset: number;
  /** Raw `?cursor=` value (decoded by the keyset module). */
  cursor?: string;
  /** `count=exact` was asked. */
  count: boolean;
}

/** A validated read request: the relations to expand and the projection. */
export interface ReadQuery {
  expand: string[];
  /** Projected columns, primary key first where the request left it out, as a list's `select`; absent means every visible column. */
  select?: string[];
}
