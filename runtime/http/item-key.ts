/**
 * The item route of a resource and the key it carries: `/{id}` for a
 * single-column primary key, one path segment per key column in key order
 * for a composite key (docs/decisions/1376-composite-key-address.md).
 */
import type { Context } from "hono";
import type { TableDescriptor } from "../descriptor.js";
import { parseKey } from "../query/index.js";
import type { RowKey } from "../sql/index.js";

/**
 * Hono's pattern of the item route under `collectionPath`: `/:id`, or
 * `/:k0/:k1…` for a composite key. The parameters are positional names,
 * not column names, because a column may be spelled with characters a
 * route pattern does not take; problems name the columns (`parseKey`).
 */
export function itemPattern(collectionPath: string, table: TableDescriptor): string {
  if (table.primaryKey.length <= 1) return `${collectionPath}/:id`;
  return collectionPath + table.primaryKey.map((_, i) => `/:k${i}`).join("");
}

/**
 * The row key of an item request, decoded from its path parameters
 * (percent-decoded by Hono, so a text key carries `/` as `%2F`).
 * @throws ProblemError 400 (`invalid-id`) naming each malformed parameter (`parseKey`)
 */
export function pathKey(table: TableDescriptor, c: Context): RowKey {
  if (table.primaryKey.length <= 1) return parseKey(table, c.req.param("id") ?? "");
  return parseKey(
    table,
    table.primaryKey.map((_, i) => c.req.param(`k${i}`) ?? ""),
  );
}
