/** `parseReadQuery`: the query string of GET /<resource>/{id} (spec: Generated operations, OpRead). */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import { parseExpand } from "./expand.js";
import { ProblemList } from "./problems.js";
import type { ReadQuery } from "./types.js";
import { vocabulary } from "./vocabulary.js";

/**
 * Parses the query string of a read: `expand` is its only parameter, and
 * only on a table with an expandable relation (spec: Generated operations
 * rule 4); any other parameter is an unknown parameter, with
 * `allowed` = `["expand"]` where expand exists. Relation names are checked
 * exactly as on the list endpoint (spec: Expansion rule 3).
 *
 * @param service the whole service; not consulted today, kept for symmetry with parseListQuery
 * @throws ProblemError 400 (`invalid-query`) listing every problem found
 */
export function parseReadQuery(service: ServiceDescriptor, table: TableDescriptor, params: URLSearchParams): ReadQuery {
  void service;
  const vocab = vocabulary(table);
  const problems = new ProblemList();
  const canExpand = vocab.expandable.length > 0;
  const expandValues: string[] = [];
  for (const [name, value] of params) {
    if (name === "expand" && canExpand) {
      expandValues.push(value);
    } else {
      const why = name === "expand" ? "this resource has no expandable relation" : "a read takes only expand";
      problems.add(`query.${name}`, `unknown parameter ${name}: ${why}`, canExpand ? { allowed: ["expand"] } : {});
    }
  }
  const expand = parseExpand(expandValues, vocab, problems);
  problems.throwIfAny("invalid-query");
  return { expand };
}
