/**
 * The value size limit of the query grammar (spec: Limits): no value, id or
 * search text longer than {@link MAX_VALUE_BYTES} UTF-8 bytes.
 */
import { MAX_VALUE_BYTES } from "../descriptor.js";

const utf8 = new TextEncoder();

/**
 * True when `text` is longer than {@link MAX_VALUE_BYTES} bytes in UTF-8.
 * One UTF-16 unit is at most three UTF-8 bytes, so a text of at most a
 * third of the limit in units is within it without being encoded: the
 * common case (an id, a filter value) allocates nothing (decision
 * docs/decisions/1341-layer-without-headers-objects.md).
 */
export function longerThanValueLimit(text: string): boolean {
  return text.length > MAX_VALUE_BYTES / 3 && utf8.encode(text).length > MAX_VALUE_BYTES;
}
