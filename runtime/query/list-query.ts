/**
 * `parseListQuery`: every query parameter of GET /<resource> checked against
 * the descriptor at once (spec: Query grammar and its subsections, Errors,
 * Limits). Each parameter is decoded by its own module; this file routes
 * them and assembles the {@link ListQuery}.
 */
import { DEFAULT_LIMITS, MAX_VALUE_BYTES, type ServiceDescriptor, type TableDescriptor } from "../descriptor.js";
import { and, type Predicate } from "../predicate.js";
import { parseColumnParam } from "./column-param.js";
import { parseExpand } from "./expand.js";
import { parseFilterTree } from "./filter-tree.js";
import { parseGroupParam } from "./groups.js";
import type { FilterContext } from "./leaf.js";
import { parsePaging } from "./paging.js";
import { ProblemList } from "./problems.js";
import { parseSelect } from "./select.js";
import { parseSort } from "./sort.js";
import type { ListQuery } from "./types.js";
import { vocabulary, type TableVocabulary } from "./vocabulary.js";
import { SINGLE } from "./parameters.js";
import { longerThanValueLimit } from "./value-bytes.js";

export { RESERVED_PARAMETERS } from "./parameters.js";

/**
 * Parameters whose repetitions are the terms of one list, in request order:
 * `sort=-length&sort=title` is `sort=-length,title`. Generated OpenAPI
 * clients (openapi-fetch) send an array parameter that way
 * (docs/decisions/0311-repeated-list-parameters.md).
 */
const JOINED = new Set(["select", "sort"]);

/**
 * The refusal of a parameter the resource does not take: spelled like an
 * unknown filter parameter, with the filterable columns as `allowed`
 * (spec: Errors, "expand on a resource with no relations: unknown
 * parameter").
 */
function unknownParameter(problems: ProblemList, vocab: TableVocabulary, name: string, why: string): void {
  problems.add(`query.${name}`, `unknown parameter ${name}: ${why}`, { allowed: vocab.filterable });
}

/**
 * Decodes `?search=`: refused on a table without a Searchable column (an
 * unknown parameter there), longer than the value limit, or holding NUL.
 * An empty search is no search (docs/decisions/0303-query-parameters.md).
 */
function parseSearch(text: string | undefined, vocab: TableVocabulary, problems: ProblemList): string | undefined {
  if (text === undefined) return undefined;
  if (vocab.searchable.length === 0) {
    unknownParameter(problems, vocab, "search", "this resource has no searchable column");
    return undefined;
  }
  if (longerThanValueLimit(text)) {
    problems.add("query.search", `search text is longer than ${MAX_VALUE_BYTES} UTF-8 bytes`, { value: text });
  } else if (text.includes("\u0000")) {
    problems.add("query.search", "search text may not contain the NUL character");
  }
  return text === "" ? undefined : text;
}

/**
 * Parses the query string of a list request.
 *
 * @param service the whole service; not consulted today (every rule is
 *   per-table), kept so cross-table rules need no signature change
 * @param table the listed table; its resource's ceilings apply (package
 *   defaults for a table without a resource)
 * @param params the request's query parameters, in request order
 * @returns the validated query: filters as one predicate (URL filters,
 *   groups and `?filter=` trees conjoined in request order), the full
 *   ordering with the primary-key tiebreak, projection, paging, expansion
 * @throws ProblemError 400 (`invalid-query`) listing every problem found
 */
export function parseListQuery(service: ServiceDescriptor, table: TableDescriptor, params: URLSearchParams): ListQuery {
  void service;
  const vocab = vocabulary(table);
  const limits = table.resource?.limits ?? DEFAULT_LIMITS;
  const problems = new ProblemList();
  const ctx: FilterContext = { vocab, problems, maxFilters: limits.maxFilters, leaves: 0, overLimitReported: false };
  const single = new Map<string, string>();
  const expandValues: string[] = [];
  const filters: Predicate[] = [];
  const keep = (p: Predicate | undefined): void => {
    if (p) filters.push(p);
  };

  for (const [name, value] of params) {
    if (JOINED.has(name)) {
      const before = single.get(name);
      single.set(name, before === undefined ? value : `${before},${value}`);
    } else if (SINGLE.has(name)) {
      if (single.has(name)) problems.add(`query.${name}`, `${name} is given more than once`, { value });
      else single.set(name, value);
    } else if (name === "or" || name === "and" || name === "not") {
      keep(parseGroupParam(ctx, name, value));
    } else if (name === "filter") {
      keep(parseFilterTree(ctx, value));
    } else if (name === "expand") {
      expandValues.push(value);
    } else {
      keep(parseColumnParam(ctx, name, value));
    }
  }

  const { sort, requested } = parseSort(single.get("sort"), table, vocab, limits.maxSortTerms, problems);
  const select = parseSelect(single.get("select"), table, vocab, problems);
  const search = parseSearch(single.get("search"), vocab, problems);
  const paging = parsePaging(
    {
      page: single.get("page"),
      perPage: single.get("per_page"),
      offset: single.get("offset"),
      cursor: single.get("cursor"),
    },
    limits,
    problems,
  );
  const count = single.get("count");
  if (count !== undefined && count !== "exact") {
    problems.add("query.count", "count takes only the value exact", { value: count, allowed: ["exact"] });
  }
  let expand: string[] = [];
  if (expandValues.length > 0) {
    if (vocab.expandable.length === 0)
      unknownParameter(problems, vocab, "expand", "this resource has no expandable relation");
    else expand = parseExpand(expandValues, vocab, problems);
  }
  problems.throwIfAny("invalid-query");

  const query: ListQuery = {
    sort,
    sortRequested: requested,
    expand,
    page: paging.page,
    perPage: paging.perPage,
    offset: paging.offset,
    count: count === "exact",
  };
  if (filters.length > 0) query.where = and(...filters);
  if (search !== undefined) query.search = search;
  if (select !== undefined) query.select = select;
  if (paging.cursor !== undefined) query.cursor = paging.cursor;
  return query;
}
