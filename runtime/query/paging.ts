/**
 * Offset paging parameters, and their exclusion with `cursor` (spec:
 * Pagination rules 1, 3 and 4; Limits; docs/decisions/0303-query-parameters.md).
 */
import type { Limits } from "../descriptor.js";
import type { ProblemList } from "./problems.js";

/** The paging parameters as given; absent ones are undefined. */
export interface PagingParams {
  page?: string;
  perPage?: string;
  offset?: string;
  cursor?: string;
}

/** The decoded page window. */
export interface Paging {
  /** 1-based page number; 1 when paging by offset or cursor. */
  page: number;
  /** Rows per page, at most MaxPageSize. */
  perPage: number;
  /** Rows to skip. */
  offset: number;
  cursor?: string;
}

/**
 * Reads a non-negative decimal integer (no sign, no fraction, no
 * exponent). Beyond 2^53 the value is kept as Infinity: it is only ever
 * compared against a ceiling.
 */
function readCount(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : Infinity;
}

function deeperThanOffsetLimit(location: string, offset: number, limits: Limits, problems: ProblemList): void {
  problems.add(
    location,
    `offset ${offset === Infinity ? "" : offset + " "}is beyond the maximum offset of ${limits.maxOffset}; page deeper with cursor (pass next_cursor of the previous page as ?cursor=)`,
  );
}

/**
 * Decodes `page`, `per_page`, `offset` and `cursor`, recording problems at
 * `query.<param>`:
 * - `page` ≥ 1, `per_page` ≥ 1, `offset` ≥ 0, all decimal integers;
 * - `per_page` above MaxPageSize is reduced to it (not a refusal);
 *   absent, DefaultPageSize applies (itself capped by MaxPageSize);
 * - `page` with `offset` is refused (two ways of saying where to start);
 * - `cursor` with `page` or `offset` is refused, naming the one to drop;
 * - an offset (given, or `(page - 1) * per_page`) beyond MaxOffset is
 *   refused, pointing at `cursor`;
 * - an empty `cursor` is refused.
 */
export function parsePaging(params: PagingParams, limits: Limits, problems: ProblemList): Paging {
  let page = 1;
  let perPage = Math.min(limits.defaultPageSize, limits.maxPageSize);
  let offset: number | undefined;
  let pageGiven = false;
  if (params.page !== undefined) {
    const n = readCount(params.page);
    if (n === undefined || n < 1)
      problems.add("query.page", "page must be an integer of at least 1", { value: params.page });
    else [page, pageGiven] = [n, true];
  }
  if (params.perPage !== undefined) {
    const n = readCount(params.perPage);
    if (n === undefined || n < 1)
      problems.add("query.per_page", "per_page must be an integer of at least 1", { value: params.perPage });
    else perPage = Math.min(n, limits.maxPageSize);
  }
  if (params.offset !== undefined) {
    const n = readCount(params.offset);
    if (n === undefined)
      problems.add("query.offset", "offset must be an integer of at least 0", { value: params.offset });
    else offset = n;
  }
  if (params.cursor !== undefined) {
    if (params.cursor === "") problems.add("query.cursor", "cursor is empty; pass next_cursor of the previous page");
    if (params.page !== undefined)
      problems.add(
        "query.page",
        "cursor and page cannot be combined: drop page (the cursor already says where the next page starts)",
      );
    if (params.offset !== undefined)
      problems.add(
        "query.offset",
        "cursor and offset cannot be combined: drop offset (the cursor already says where the next page starts)",
      );
  } else if (params.page !== undefined && params.offset !== undefined) {
    problems.add("query.offset", "page and offset cannot be combined: drop one of them");
  } else if (offset !== undefined && offset > limits.maxOffset) {
    deeperThanOffsetLimit("query.offset", offset, limits, problems);
  } else if (pageGiven && (page - 1) * perPage > limits.maxOffset) {
    deeperThanOffsetLimit("query.page", (page - 1) * perPage, limits, problems);
  }
  const out: Paging = { page: offset === undefined ? page : 1, perPage, offset: offset ?? (page - 1) * perPage };
  if (params.cursor !== undefined) out.cursor = params.cursor;
  return out;
}
