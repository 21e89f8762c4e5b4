/**
 * `?sort=` and the default ordering (spec: Sorting). Every ordering ends
 * with the primary key, so pages are deterministic and keyset pagination
 * has a unique seek position (spec: Pagination rule 5). Choices the spec
 * leaves open are in docs/decisions/0303-query-parameters.md.
 */
import type { SortTerm, TableDescriptor } from "../descriptor.js";
import type { ProblemList } from "./problems.js";
import type { TableVocabulary } from "./vocabulary.js";

/**
 * Appends every primary-key column not already in `terms`, in key order,
 * each taking the direction of the last term, so the tiebreak runs the same
 * way as the ordering it completes and one composite index can serve it:
 * `-rental_date` becomes `rental_date DESC, rental_id DESC`. With no terms
 * the key ascends.
 */
export function withKeyTiebreak(terms: readonly SortTerm[], primaryKey: readonly string[]): SortTerm[] {
  const out = [...terms];
  const descending = terms.length > 0 ? terms[terms.length - 1].descending : false;
  for (const column of primaryKey) {
    if (!out.some((t) => t.column === column)) out.push({ column, descending });
  }
  return out;
}

/**
 * Reads one term: `-col` (descending), `col`, `col.asc` or `col.desc`.
 * Surrounding spaces are dropped (an unencoded `+` arrives as one).
 */
function readTerm(raw: string): { column: string; descending: boolean } | undefined {
  const t = raw.trim();
  const m = /^(-?)([^.\s-][^.\s]*)(?:\.(asc|desc))?$/.exec(t);
  if (!m || (m[1] === "-" && m[3] !== undefined)) return undefined;
  return { column: m[2], descending: m[1] === "-" || m[3] === "desc" };
}

/**
 * Parses `?sort=` (or applies the default when `text` is undefined) and
 * appends the primary-key tiebreak. Refusals, recorded at `query.sort`: a
 * malformed or empty term, a column that is not sortable (hidden and
 * unknown columns alike; `allowed` = the sortable columns), a column named
 * twice, more than MaxSortTerms terms.
 * @returns the full ordering and whether it came from the request
 */
export function parseSort(
  text: string | undefined,
  table: TableDescriptor,
  vocab: TableVocabulary,
  maxSortTerms: number,
  problems: ProblemList,
): { sort: SortTerm[]; requested: boolean } {
  if (text === undefined) {
    return { sort: withKeyTiebreak(table.resource?.defaultSort ?? [], table.primaryKey), requested: false };
  }
  const terms: SortTerm[] = [];
  const items = text.split(",");
  if (items.length > maxSortTerms) {
    problems.add("query.sort", `too many sort terms: ${items.length} given, at most ${maxSortTerms}`, { value: text });
  }
  for (const raw of items) {
    const term = readTerm(raw);
    if (!term) {
      problems.add("query.sort", `malformed sort term ${JSON.stringify(raw)}; write col, -col, col.asc or col.desc`, {
        value: raw,
        allowed: vocab.sortable,
      });
    } else if (!vocab.sortable.includes(term.column)) {
      const col = vocab.visible.get(term.column);
      // No `value` echo for a name that may be hidden; the detail names it.
      problems.add("query.sort", col ? `column ${term.column} is not sortable` : `unknown column ${term.column}`, {
        allowed: vocab.sortable,
      });
    } else if (terms.some((t) => t.column === term.column)) {
      problems.add("query.sort", `column ${term.column} is named twice in sort`, { value: term.column });
    } else {
      terms.push(term);
    }
  }
  return { sort: withKeyTiebreak(terms, table.primaryKey), requested: true };
}
