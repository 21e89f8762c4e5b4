/** `parseReadQuery`: the query string of GET /<resource>/{id} (spec: Generated operations, OpRead). */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import { parseExpand } from "./expand.js";
import { ProblemList } from "./problems.js";
import { parseSelect } from "./select.js";
import type { ReadQuery } from "./types.js";
import { vocabulary } from "./vocabulary.js";

/**
 * Parses the query string of a read: `select` and, on a table with an
 * expandable relation, `expand` (spec: Generated operations rule 4), each
 * read exactly as a list reads it, repetitions included (`select=a&select=b`
 * is `select=a,b`; spec: Projection, Expansion rule 3;
 * docs/decisions/0311-repeated-list-parameters.md), so whatever projection
 * and expansion a list of the resource accepts, a read of one of its rows
 * accepts too. Any other parameter is an unknown parameter, with `allowed`
 * naming the two.
 *
 * @param service the whole service; not consulted today, kept for symmetry with parseListQuery
 * @throws ProblemError 400 (`invalid-query`) listing every problem found
 */
export function parseReadQuery(service: ServiceDescriptor, table: TableDescriptor, params: URLSearchParams): ReadQuery {
  void service;
  const vocab = vocabulary(table);
  const problems = new ProblemList();
  const canExpand = vocab.expandable.length > 0;
  const allowed = canExpand ? ["expand", "select"] : ["select"];
  const expandValues: string[] = [];
  let selectText: string | undefined;
  for (const [name, value] of params) {
    if (name === "expand" && canExpand) {
      expandValues.push(value);
    } else if (name === "select") {
      selectText = selectText === undefined ? value : `${selectText},${value}`;
    } else {
      const why =
        name === "expand" ? "this resource has no expandable relation" : `a read takes only ${allowed.join(" and ")}`;
      problems.add(`query.${name}`, `unknown parameter ${name}: ${why}`, {
        allowed,
      });
    }
  }
  const expand = parseExpand(expandValues, vocab, problems);
  const select = parseSelect(selectText, table, vocab, problems);
  problems.throwIfAny("invalid-query");
  return select === undefined ? { expand } : { expand, select };
}
