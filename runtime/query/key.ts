/** `parseKey`: the `{id}` of an item route (spec: Generated operations). */
import { MAX_VALUE_BYTES, type TableDescriptor } from "../descriptor.js";
import type { ScalarValue } from "../predicate.js";
import { badRequest } from "../problem.js";
import { decodeText } from "./codecs.js";
import { echoValue } from "./problems.js";
import { longerThanValueLimit } from "./value-bytes.js";

/**
 * Decodes the path segment `{id}` for the table's single-column primary
 * key, with the same codec as a filter value. A malformed id is a 400 at
 * `path.id` rather than a 404, so a client learns its id has the wrong
 * form instead of searching for a row (docs/decisions/0303-query-parameters.md).
 *
 * @param text the path segment, already percent-decoded
 * @throws ProblemError 400 (`invalid-id`) at `path.id` when the text does
 *   not decode for the key's type or is longer than 256 UTF-8 bytes
 * @throws Error when the table's key is not one column: such tables are
 *   list-only and have no item routes, so this is a programming error
 */
export function parseKey(table: TableDescriptor, text: string): ScalarValue {
  const col = table.primaryKey.length === 1 ? table.columns.find((c) => c.name === table.primaryKey[0]) : undefined;
  if (!col) throw new Error(`table ${table.name} has no single-column primary key, so it has no item routes`);
  const d = longerThanValueLimit(text)
    ? { ok: false as const, detail: `longer than ${MAX_VALUE_BYTES} UTF-8 bytes` }
    : decodeText(col, text);
  if (d.ok) return d.value;
  // The detail names the key's type, never the column: the key may be a hidden column.
  // `GET /<resource>/events` on a resource without a feed reaches the item route: say why there is no feed.
  const why =
    text === "events" && !table.resource?.events
      ? "; this resource has no change feed (declare events = true in its resource block)"
      : "";
  const item = { location: "path.id", detail: `invalid id: ${d.detail}${why}`, value: echoValue(text) };
  throw badRequest("invalid-id", [d.allowed ? { ...item, allowed: [...d.allowed] } : item]);
}
