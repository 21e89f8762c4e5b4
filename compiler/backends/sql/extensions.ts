/**
 * The extensions a schema needs before its DDL can run, found in what it
 * says: a column or domain typed by an extension's type (`citext`,
 * `hstore`, `ltree`), a default or check calling an extension's function
 * (`uuid_generate_v4()`, `gen_random_bytes(16)`). `resc sql` and
 * `migrate` create them first (`CREATE EXTENSION IF NOT EXISTS`), so a
 * pulled file applies to an empty database without a declaration the user
 * must keep in step (docs/decisions/1258-extensions-and-functions.md).
 */
import { storedColumns, type Schema } from "../../../language/ir.js";

/** Types that only an extension provides, by the extension's name. */
const TYPES: Readonly<Record<string, readonly string[]>> = {
  citext: ["citext"],
  hstore: ["hstore"],
  ltree: ["ltree", "lquery", "ltxtquery"],
  cube: ["cube"],
  seg: ["seg"],
  isn: ["ean13", "isbn", "isbn13", "ismn", "ismn13", "issn", "issn13", "upc"],
};

/** Functions that only an extension provides, by the extension's name (core's `gen_random_uuid()` is not one). */
const FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  "uuid-ossp": [
    "uuid_generate_v1",
    "uuid_generate_v1mc",
    "uuid_generate_v3",
    "uuid_generate_v4",
    "uuid_generate_v5",
    "uuid_nil",
    "uuid_ns_dns",
    "uuid_ns_url",
    "uuid_ns_oid",
    "uuid_ns_x500",
  ],
  pgcrypto: ["gen_random_bytes", "gen_salt", "crypt", "digest", "hmac", "pgp_sym_encrypt", "pgp_pub_encrypt"],
  pg_trgm: ["similarity", "word_similarity", "show_trgm"],
  unaccent: ["unaccent"],
  fuzzystrmatch: ["levenshtein", "soundex", "metaphone", "dmetaphone"],
};

/**
 * The extensions that type names `types` (without modifiers or `[]`) and the SQL texts `sql` (defaults, checks)
 * need, by `CREATE EXTENSION` name, sorted.
 */
export function extensionsUsed(types: readonly string[], sql: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of types)
    for (const [ext, names] of Object.entries(TYPES)) if (names.includes(t.toLowerCase())) out.add(ext);
  const text = sql.join("\n");
  for (const [ext, names] of Object.entries(FUNCTIONS))
    if (names.some((n) => new RegExp(`(^|[^A-Za-z0-9_."])${n}\\s*\\(`, "i").test(text))) out.add(ext);
  return [...out].sort();
}

/**
 * The extensions `schema` needs, by `CREATE EXTENSION` name, in a stable order (sorted). A type the schema
 * declares itself (a domain or enum named `isbn`) is that declaration, not the extension's type: creating the
 * extension too would make the declaration fail ("type already exists").
 */
export function requiredExtensions(schema: Schema): string[] {
  const own = new Set([...schema.domains, ...schema.enums].map((d) => d.name.toLowerCase()));
  const types = [
    ...schema.domains.map((d) => d.base),
    ...schema.tables.flatMap((t) => storedColumns(t).map((c) => c.type)),
  ].filter((t) => !own.has(t.name.toLowerCase()));
  const sql = [
    ...schema.domains.flatMap((d) => (d.check !== undefined ? [d.check] : [])),
    ...schema.tables.flatMap((t) =>
      storedColumns(t).flatMap((c) => [
        ...(c.check !== undefined ? [c.check] : []),
        ...(c.default?.kind === "sql" ? [c.default.sql] : []),
      ]),
    ),
  ];
  return extensionsUsed(
    types.map((t) => t.name),
    sql,
  );
}
