/**
 * Request decoding: turns what a client sent (query string, `{id}`, JSON
 * body) into validated values for the SQL compiler, or a 400 problem
 * document listing every problem at once (spec: Query grammar, Errors,
 * Limits). Nothing here builds SQL.
 */
export { parseListQuery, RESERVED_PARAMETERS } from "./list-query.js";
export { parseReadQuery } from "./read-query.js";
export { keyLocation, parseKey } from "./key.js";
export {
  elementLocation,
  parseActionInput,
  parseCreateBody,
  parseCreateRows,
  parseUpdateBody,
  type BodyValues,
  type UpdateBody,
} from "./body.js";
export { decodeValue, decodeJson, type WriteValue } from "./codecs.js";
export { operatorsFor, type OperatorName } from "./operators.js";
export { withKeyTiebreak } from "./sort.js";
export type { ListQuery, ReadQuery } from "./types.js";
