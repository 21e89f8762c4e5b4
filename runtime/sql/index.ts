/**
 * The SQL compiler of the runtime: predicate trees and list, read and write
 * requests to SQL text with `$n` bind parameters (runtime/exec/executor.ts
 * `SqlStatement`). Lists, reads and writes return each row's members
 * (`members.ts`, decisions 0805 and 1351), which `encodeRow` writes as the
 * row object; a delete returns its key as JSON built by PostgreSQL.
 */
export { compileWhere } from "./where.js";
export { compileList, type ListStatements } from "./list.js";
export { type RowKey } from "./key.js";
export { compileAnyRow, compileLockRow, compileRead, compileReadBatch, compileRowExists } from "./read.js";
export {
  encodeRow,
  extraElementsOf,
  type Member,
  type MemberForm,
  type RowLayout,
  type RowStatement,
} from "./members.js";
export {
  compileInsert,
  compileInsertMany,
  compileUpdate,
  compileDelete,
  compileDeleteWhere,
  compileUpdateWhere,
  WRITE_CHECK_MEMBER,
  type ConflictAction,
  type RowFilter,
  type WriteValues,
} from "./write.js";
export type { CompileOptions, ListOptions } from "./options.js";
export { compileSeek, sortKeyTexts, type SortKeyText } from "./seek.js";
export { Params, encodeArray, encodeJson, encodeScalar, type ArrayElement } from "./bind.js";
export { quoteIdent } from "./ident.js";
export { escapeLike } from "./like.js";
export { orderKeys, orderByTerms, withKeyTiebreak, type OrderKey } from "./order.js";
export type { ColumnValue } from "./column.js";
export { compileValuesJson } from "./output.js";
