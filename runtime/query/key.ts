/**
 * `parseKey`: the `{id}` of an item route, or the `/{a}/{b}` segments of a
 * composite key (spec: Generated operations; docs/decisions/1376-composite-key-address.md).
 */
import { MAX_VALUE_BYTES, type ColumnDescriptor, type TableDescriptor } from "../descriptor.js";
import type { ScalarValue } from "../predicate.js";
import type { ProblemItem } from "../problem.js";
import { badRequest } from "../problem.js";
import { decodeText } from "./codecs.js";
import { echoValue } from "./problems.js";
import { longerThanValueLimit } from "./value-bytes.js";

/**
 * The location of the path parameter of key column `index` of `table`:
 * `path.id` for a single-column key, `path.<column>` for a column of a
 * composite key (each is its own path parameter, named by its column).
 */
export function keyLocation(table: TableDescriptor, index: number): string {
  return table.primaryKey.length === 1 ? "path.id" : `path.${table.primaryKey[index]}`;
}

/**
 * Decodes the path segment `{id}` for the table's single-column primary
 * key, with the same codec as a filter value; for a composite key, `text`
 * is one segment per key column in key order and the answer is their
 * values in that order. A malformed id is a 400 at `path.id` (or
 * `path.<column>`, one problem per malformed segment) rather than a 404, so
 * a client learns its id has the wrong form instead of searching for a row
 * (docs/decisions/0303-query-parameters.md).
 *
 * @param text the path segment(s), already percent-decoded
 * @returns the value, or for a composite key the values in key order
 * @throws ProblemError 400 (`invalid-id`) at `path.id` or `path.<column>`
 *   when a segment does not decode for its column's type or is longer than
 *   256 UTF-8 bytes
 * @throws Error when the table has no primary key, or `text` is not one
 *   segment per key column: the routes are built from the same descriptor,
 *   so this is a programming error
 */
export function parseKey(table: TableDescriptor, text: string | readonly string[]): ScalarValue | ScalarValue[] {
  const texts: readonly string[] = typeof text === "string" ? [text] : text;
  const cols = table.primaryKey.map((name) => table.columns.find((c) => c.name === name));
  if (cols.length === 0 || cols.length !== texts.length || cols.some((c) => c === undefined)) {
    throw new Error(`table ${table.name} is not addressed by ${texts.length} key segment(s)`);
  }
  const values: ScalarValue[] = [];
  const problems: ProblemItem[] = [];
  cols.forEach((col, i) => {
    const d = decodeSegment(table, col!, texts[i]!, i);
    if ("value" in d) values.push(d.value);
    else problems.push(d.problem);
  });
  if (problems.length > 0) throw badRequest("invalid-id", problems);
  return typeof text === "string" ? values[0]! : values;
}

/** One key segment decoded for its column, or the problem that names its path parameter. */
function decodeSegment(
  table: TableDescriptor,
  col: ColumnDescriptor,
  text: string,
  index: number,
): { value: ScalarValue } | { problem: ProblemItem } {
  const d = longerThanValueLimit(text)
    ? { ok: false as const, detail: `longer than ${MAX_VALUE_BYTES} UTF-8 bytes`, allowed: undefined }
    : decodeText(col, text);
  if (d.ok) return { value: d.value };
  // The detail names the key's type, never the column: a single key may be a hidden column.
  // `GET /<resource>/events` on a resource without a feed reaches the item route: say why there is no feed.
  const why =
    table.primaryKey.length === 1 && text === "events" && !table.resource?.events
      ? "; this resource has no change feed (declare events = true in its resource block)"
      : "";
  const item: ProblemItem = {
    location: keyLocation(table, index),
    detail: `invalid id: ${d.detail}${why}`,
    value: echoValue(text),
  };
  return { problem: d.allowed ? { ...item, allowed: [...d.allowed] } : item };
}
