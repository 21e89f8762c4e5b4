/** `?select=`, the projection (spec: Projection; docs/decisions/0303-query-parameters.md). */
import type { TableDescriptor } from "../descriptor.js";
import type { ProblemList } from "./problems.js";
import type { TableVocabulary } from "./vocabulary.js";

/**
 * Parses `?select=a,b`: every name must be a visible column (computed
 * columns count when the resource computes them); otherwise a refusal at
 * `query.select` with `allowed` = the selectable columns. Repeated names are
 * kept once (they cannot mean anything else); the primary-key columns the
 * request left out are put first, in key order, because the key is always
 * returned.
 * @returns the projected columns, or undefined when `text` is undefined
 */
export function parseSelect(
  text: string | undefined,
  table: TableDescriptor,
  vocab: TableVocabulary,
  problems: ProblemList,
): string[] | undefined {
  if (text === undefined) return undefined;
  const chosen: string[] = [];
  for (const raw of text.split(",")) {
    const name = raw.trim();
    if (!vocab.visible.has(name)) {
      const detail = name === "" ? "empty column name in select" : `unknown column ${name}`;
      // No `value` echo for a name that may be hidden; the detail names it.
      problems.add("query.select", detail, { allowed: vocab.selectable });
    } else if (!chosen.includes(name)) {
      chosen.push(name);
    }
  }
  return [...table.primaryKey.filter((k) => !chosen.includes(k)), ...chosen];
}
