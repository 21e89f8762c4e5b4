/** `?expand=`, relation expansion by relation name (spec: Expansion). */
import type { ProblemList } from "./problems.js";
import type { TableVocabulary } from "./vocabulary.js";

/**
 * Parses the `expand` values of a request (`expand=a,b`, and repeated
 * `expand=` parameters, which add up). Each name must be an expandable
 * relation (never a column name); otherwise a refusal at `query.expand`
 * with `allowed` = the expandable relations. Duplicates are removed,
 * request order kept. The caller treats `expand` on a table with no
 * expandable relation as an unknown parameter (spec: Generated operations
 * rule 4) before calling this.
 */
export function parseExpand(values: readonly string[], vocab: TableVocabulary, problems: ProblemList): string[] {
  const out: string[] = [];
  for (const value of values) {
    for (const raw of value.split(",")) {
      const name = raw.trim();
      if (!vocab.expandable.includes(name)) {
        const detail = name === "" ? "empty relation name in expand" : `${name} is not an expandable relation`;
        problems.add("query.expand", detail, { value: raw, allowed: vocab.expandable });
      } else if (!out.includes(name)) {
        out.push(name);
      }
    }
  }
  return out;
}
