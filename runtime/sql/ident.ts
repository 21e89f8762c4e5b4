/**
 * SQL identifiers. Every table, column and alias name that reaches SQL text
 * comes from a validated descriptor and goes through {@link quoteIdent}, so a
 * name is never read as a keyword or as SQL (spec: "Identifiers are
 * validated against the model before use").
 */

/**
 * Quotes one identifier: always double-quoted, embedded double quotes
 * doubled (PostgreSQL "Identifiers and Key Words"). `quoteIdent('a"b')` is
 * `"a""b"`. Throws when the name contains a NUL character, which PostgreSQL
 * cannot store in an identifier.
 */
export function quoteIdent(name: string): string {
  if (name.includes("\u0000")) throw new Error(`identifier ${JSON.stringify(name)} contains a NUL character`);
  // Names rarely hold a double quote; skipping the replace matters, as every statement quotes dozens (decision 0802).
  return name.includes('"') ? `"${name.replace(/"/g, '""')}"` : `"${name}"`;
}

/** A column of a FROM item: `"alias"."column"`, both quoted. */
export function qualified(alias: string, column: string): string {
  return `${quoteIdent(alias)}.${quoteIdent(column)}`;
}

/**
 * A table as a FROM item or write target: its database name quoted and,
 * with `@@schema`, qualified (`"billing"."invoices"`); the name the API
 * uses when the two agree (docs/decisions/1257-database-names.md).
 */
export function tableSql(table: { name: string; dbName?: string; schema?: string }): string {
  const name = quoteIdent(table.dbName ?? table.name);
  return table.schema !== undefined ? `${quoteIdent(table.schema)}.${name}` : name;
}

/** A column's quoted database name: `@map`'s, else its API name. */
export function columnSqlName(col: { name: string; dbName?: string }): string {
  return quoteIdent(col.dbName ?? col.name);
}
