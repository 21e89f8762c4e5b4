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
