/**
 * SQL identifier quoting for everything the compiler emits. Identifiers come
 * only from the validated IR; quoting keeps a name that happens to be a
 * keyword, or holds capitals or a quote, meaning exactly what was written.
 */
import { storedColumns, type IndexDecl, type TableDecl } from "../language/ir.js";

/**
 * The name of an `@@index` in the database: its own, else the one PostgreSQL itself would pick for an unnamed
 * index, `<table>_<columns>_idx` by database names. The SQL backend creates it so, and the descriptor maps a
 * violated index back to its columns by it (runtime/http/db-errors.ts).
 */
export function indexName(table: TableDecl, index: IndexDecl): string {
  const columns = index.columns.map((c) => storedColumns(table).find((x) => x.name === c)?.dbName ?? c);
  return index.name ?? `${table.dbName ?? table.name}_${columns.join("_")}_idx`;
}

/** `name` as a double-quoted SQL identifier, embedded quotes doubled: `a"b` → `"a""b"`. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Keywords that cannot stand unquoted as a type name in PostgreSQL (its
 * reserved, type/function-name and column-name keyword classes).
 */
const NOT_A_BARE_TYPE_NAME = new Set(
  (
    "all analyse analyze and any array as asc asymmetric both case cast check collate column constraint " +
    "create current_catalog current_date current_role current_time current_timestamp current_user default " +
    "deferrable desc distinct do else end except false fetch for foreign from grant group having in initially " +
    "intersect into lateral leading limit localtime localtimestamp not null offset on only or order placing " +
    "primary references returning select session_user some symmetric system_user table then to trailing true " +
    "union unique user using variadic when where window with authorization binary collation concurrently cross " +
    "current_schema freeze full ilike inner is isnull join left like natural notnull outer overlaps right " +
    "similar tablesample verbose between bigint bit boolean char character coalesce dec decimal exists extract " +
    "float greatest grouping inout int integer interval least national nchar none normalize nullif numeric out " +
    "overlay position precision real row setof smallint substring time timestamp treat trim values varchar xmlattributes " +
    "xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse xmlpi xmlroot xmlserialize xmltable json " +
    "json_array json_arrayagg json_exists json_object json_objectagg json_query json_scalar json_serialize " +
    "json_table json_value merge_action"
  ).split(" "),
);

/**
 * A user-defined type name (enum, domain) as it may appear in a cast:
 * bare when it is a plain lower-case identifier that is not a keyword,
 * quoted otherwise (runtime descriptors read more naturally unquoted).
 */
export function typeNameForCast(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !NOT_A_BARE_TYPE_NAME.has(name) ? name : quoteIdent(name);
}

/** What names a table, an enum or a domain in the database: its name in the file, `@map`/`@@map` and `@schema`/`@@schema`. */
export interface DatabasePlace {
  name: string;
  dbName?: string;
  schema?: string;
}

/**
 * The quoted SQL name of a table, enum or domain: `"UserAccount"`, or
 * `"billing"."invoices"` with a schema (docs/decisions/1257-database-names.md).
 * Without `@@schema` the name stays unqualified, so it resolves through the
 * connection's search path as it always did. The same rule as the runtime's
 * `tableSql`, written here too on purpose: `resc check` loads no runtime SQL
 * module (decision 1323, test/startup/lazy-commands.test.ts).
 */
export function placeSql(d: DatabasePlace): string {
  const name = quoteIdent(d.dbName ?? d.name);
  return d.schema !== undefined ? `${quoteIdent(d.schema)}.${name}` : name;
}

/** The quoted SQL name of a column: its `@map` name, else its name. */
export function columnSql(c: { name: string; dbName?: string }): string {
  return quoteIdent(c.dbName ?? c.name);
}

/**
 * A user-defined type (enum, domain) as it appears in a cast, placed: bare
 * when it has neither `@map` nor `@schema` and {@link typeNameForCast} allows,
 * quoted and qualified otherwise.
 */
export function placedTypeForCast(d: DatabasePlace): string {
  return d.dbName === undefined && d.schema === undefined ? typeNameForCast(d.name) : placeSql(d);
}
