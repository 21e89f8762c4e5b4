/**
 * What row-returning statements select for their row objects: the members
 * for lists, reads (docs/decisions/0805-row-members-as-json-array.md) and
 * writes (docs/decisions/1351-written-rows-as-members.md); JSON built by
 * PostgreSQL (docs/decisions/0400-row-json-forms.md) only for the version
 * tag a conditional write compares in its own statement.
 */
import type { ServiceDescriptor, TableDescriptor } from "../descriptor.js";
import { encodeArray, type Params } from "./bind.js";
import { expansionEntries, type ExpandContext } from "./expand.js";
import { tableRow } from "./output.js";
import { memberSelect, tableMembers, withJsonMembers, type RowLayout, type RowMembers } from "./members.js";

/** What to put in a row object. */
export interface RowShape {
  /** Projection (spec: Projection); absent for every visible column. */
  select?: readonly string[];
  /** Relations to expand, in order; empty for none. */
  expand: readonly string[];
}

/**
 * The row object of `table` aliased `alias` without expansions, as the
 * select or `RETURNING` list of a statement that reads or writes whole rows
 * (a write, the locked read of an action): `json_build_array(…)::text AS
 * "j"` and a column per member that is JSON already, with the layout
 * `encodeRow` writes the object from, the same text a read of the row
 * sends (docs/decisions/1351-written-rows-as-members.md; spec: Generated
 * operations, "returns the stored row without expansions"). Built once per table
 * and alias (decision 0802); throws nothing for a descriptor the validator
 * passed.
 */
export function rowMemberSelect(table: TableDescriptor, alias: string): { list: string; layout: RowLayout } {
  return memberSelect(tableMembers(table, alias));
}

/**
 * `md5(convert_to(<row json>::text, 'UTF8'))`: the version tag of the row
 * of `table` aliased `alias`, as 32 hex digits. It hashes the UTF-8 bytes
 * of the row's served representation without expansions (the JSON a write
 * returns, here built by `row_to_json`), so it changes exactly when a
 * visible or computed value does; a write with `If-Match` compares it in
 * its own WHERE clause
 * (docs/decisions/1329-conditional-requests.md). The `ETag` of an answer is
 * the same digest computed in Node from the body sent, which is byte for
 * byte this JSON (decision 0805): reads since
 * docs/decisions/1339-lighter-request-path.md, writes and actions since
 * docs/decisions/1341-layer-without-headers-objects.md, so no statement
 * builds a row twice; hashing UTF-8 whatever the server's encoding keeps
 * the two equal.
 */
export function rowTag(table: TableDescriptor, alias: string): string {
  return `md5(convert_to(${tableRow(table, alias).json}::text, 'UTF8'))`;
}

/**
 * `AND <row tag> = ANY($n::text[])`: the condition of a write sent with
 * `If-Match`, checked by the statement that writes, so of two writes sent
 * with one tag only the first can match. Empty when there is no condition
 * (`tags` undefined: no header, or `*`).
 */
export function tagCondition(
  table: TableDescriptor,
  alias: string,
  tags: readonly string[] | undefined,
  params: Params,
): string {
  if (tags === undefined) return "";
  return ` AND ${rowTag(table, alias)} = ANY(${params.add(encodeArray(tags))}::text[])`;
}

/**
 * The members of the row object of `table` aliased `alias`, as lists and
 * reads select them (docs/decisions/0805-row-members-as-json-array.md):
 * visible columns in declaration order, then each expanded relation under
 * its name, its value the JSON PostgreSQL builds. Expansion values (limits,
 * scope values) are added to `params`. With `ctx.page` (a list page's common
 * table expression) the expansions read the page at once, through the
 * `joins` of the result (docs/decisions/1340-expansions-per-page.md).
 */
export function rowMembers(
  service: ServiceDescriptor,
  table: TableDescriptor,
  alias: string,
  shape: RowShape,
  ctx: Omit<ExpandContext, "service">,
): RowMembers {
  const row = tableMembers(table, alias, shape.select);
  if (shape.expand.length === 0) return row;
  return withJsonMembers(row, expansionEntries({ service, ...ctx }, table, shape.expand, alias));
}
