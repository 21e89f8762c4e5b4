/**
 * The SQL DDL backend: the schema as a PostgreSQL script that creates it
 * from nothing, in dependency order (enums, domains, tables with referenced
 * tables first, cyclic references, indexes). Identifiers are always
 * double-quoted; the output is byte-for-byte deterministic
 * (docs/decisions/0211-ddl-shape.md).
 */
import { columnSql, indexName, placeSql, quoteIdent } from "../../ident.js";
import { storedColumns, type ColumnDecl, type DomainDecl, type Schema, type TableDecl } from "../../../language/ir.js";
import { generatedSqlHeader } from "../../generated-file.js";
import { SchemaIndex } from "../../schema-index.js";
import { orderTables } from "./order.js";
import { requiredExtensions } from "./extensions.js";
import { namedSequences } from "./sequences.js";
import { createIndex, createTable, referencesClause, tableIndexes } from "./table.js";
import { ddlType, stringLiteral } from "./types.js";
import { CAPTURE_DDL, captureTrigger } from "../../../runtime/events/outbox.js";

/** Domains ordered so a domain over another domain comes after it. */
function orderDomains(index: SchemaIndex): DomainDecl[] {
  const out: DomainDecl[] = [];
  const seen = new Set<DomainDecl>();
  const visit = (d: DomainDecl): void => {
    if (seen.has(d)) return;
    seen.add(d);
    const base = index.domains.get(d.base.name);
    if (base) visit(base);
    out.push(d);
  };
  for (const d of index.schema.domains) visit(d);
  return out;
}

/**
 * The namespaces `@schema`/`@@schema` name, but `public`, which every
 * database has, in order of first use: created before anything lives in
 * them (docs/decisions/1257-database-names.md).
 */
export function namespaces(schema: Schema): string[] {
  const out = new Set<string>();
  for (const d of [...schema.enums, ...schema.domains, ...schema.tables])
    if (d.schema !== undefined && d.schema !== "public") out.add(d.schema);
  return [...out];
}

/**
 * Every namespace the schema's declarations live in, `public` first when a
 * declaration has no `@schema`/`@@schema` (or names `public`): what the
 * drift gate and `migrate` read of a database (docs/decisions/1257-database-names.md).
 */
export function schemaNamespaces(schema: Schema): string[] {
  const decls = [...schema.enums, ...schema.domains, ...schema.tables];
  const others = namespaces(schema);
  const inPublic = decls.length === 0 || decls.some((d) => d.schema === undefined || d.schema === "public");
  return inPublic ? ["public", ...others] : others;
}

/** An extension's name in `CREATE EXTENSION`: bare when it is a plain identifier (`citext`), quoted otherwise (`"uuid-ossp"`). */
function extensionName(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : quoteIdent(name);
}

/**
 * The DDL of a valid schema (spec: the SQL backend of docs/architecture):
 * a header comment, then `CREATE TYPE … AS ENUM`, `CREATE DOMAIN`, the
 * sequences `nextval` defaults name (`CREATE SEQUENCE`), `CREATE TABLE` (columns, NOT NULL, DEFAULT, identity, keys, UNIQUE,
 * CHECK, REFERENCES), `ALTER TABLE … ADD FOREIGN KEY` for references that
 * close a cycle, `CREATE INDEX`, and the change feed's outbox and triggers
 * when a resource declares events. Computed columns are not stored.
 * Ends with a newline.
 */
export function emitSql(schema: Schema): string {
  const index = new SchemaIndex(schema);
  const out: string[] = [generatedSqlHeader(schema)];
  for (const e of requiredExtensions(schema)) out.push(`CREATE EXTENSION IF NOT EXISTS ${extensionName(e)};`);
  for (const s of namespaces(schema)) out.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(s)};`);
  for (const e of schema.enums) {
    out.push(`CREATE TYPE ${placeSql(e)} AS ENUM (${e.values.map(stringLiteral).join(", ")});`);
  }
  for (const d of orderDomains(index)) {
    const check = d.check !== undefined ? ` CHECK (${d.check})` : "";
    out.push(`CREATE DOMAIN ${placeSql(d)} AS ${ddlType(d.base, index)}${check};`);
  }
  for (const s of namedSequences(schema)) out.push(`CREATE SEQUENCE ${s};`);
  const order = orderTables(schema.tables);
  // A reference whose target is unique only through a unique index must wait for that index.
  const afterIndexes = order.tables.flatMap((table) =>
    table.columns
      .filter((column) => column.ref && column.computed === undefined && needsUniqueIndex(index, column))
      .map((column) => ({ table, column })),
  );
  const deferred = new Set<ColumnDecl>([...order.deferred, ...afterIndexes].map((d) => d.column));
  for (const table of order.tables) {
    out.push(createTable(index, table, deferred));
    const comments = commentsOf(table);
    if (comments.length > 0) out.push(comments.join("\n"));
  }
  const addForeignKey = ({ table, column }: { table: TableDecl; column: ColumnDecl }): void => {
    const refs = referencesClause(index, column);
    if (refs) out.push(`ALTER TABLE ${placeSql(table)} ADD FOREIGN KEY (${columnSql(column)}) ${refs};`);
  };
  for (const d of order.deferred) if (!afterIndexes.some((a) => a.column === d.column)) addForeignKey(d);
  const names = new Set<string>();
  for (const table of order.tables) {
    for (const idx of tableIndexes(table)) {
      let name = indexName(table, idx);
      for (let n = 1; names.has(name); n++) name = `${indexName(table, idx)}${n}`;
      names.add(name);
      out.push(createIndex(table, idx, name));
    }
  }
  afterIndexes.forEach(addForeignKey);
  out.push(...captureSql(order.tables));
  return out.join("\n\n") + "\n";
}

/**
 * Only the change feed's capture of `schema` (what `resc sql --capture`
 * prints): the outbox, its trigger function and one trigger per table whose
 * resource declares `events = true`, in dependency order, as {@link emitSql}
 * ends with them; empty when no resource declares events. For a database
 * made without resc (a dump such as Pagila's) that already holds the
 * tables, so `resc dev --database-url` finds the capture it checks for
 * (docs/decisions/1337-change-feed.md).
 */
export function emitCaptureSql(schema: Schema): string {
  const statements = captureSql(orderTables(schema.tables).tables);
  return statements.length === 0 ? "" : [generatedSqlHeader(schema), ...statements].join("\n\n") + "\n";
}

/**
 * The change feed's capture (docs/decisions/1337-change-feed.md): when a
 * resource declares `events = true`, the outbox, its trigger function and
 * one trigger per such table, in table order; nothing otherwise.
 */
function captureSql(tables: readonly TableDecl[]): string[] {
  const captured = tables.filter((t) => t.resource?.events);
  if (captured.length === 0) return [];
  return [...CAPTURE_DDL, ...captured.map((t) => captureTrigger(placeSql(t), stringLiteral(t.name)))];
}

/**
 * `COMMENT ON TABLE`/`COMMENT ON COLUMN` for the doc comments of a table and
 * its stored columns, so the database describes itself as the file does and
 * `resc pull` reads the docs back (docs/decisions/1258-extensions-and-functions.md).
 */
function commentsOf(table: TableDecl): string[] {
  const out: string[] = [];
  if (table.doc !== undefined) out.push(`COMMENT ON TABLE ${placeSql(table)} IS ${stringLiteral(table.doc)};`);
  for (const c of storedColumns(table))
    if (c.doc !== undefined && c.computed === undefined)
      out.push(`COMMENT ON COLUMN ${placeSql(table)}.${columnSql(c)} IS ${stringLiteral(c.doc)};`);
  return out;
}

/**
 * Whether the column `column` refers to is unique only through a unique
 * `@@index` (not a key, `@unique` or `@@unique`, which CREATE TABLE makes),
 * so its FOREIGN KEY can be added only after that index exists.
 */
function needsUniqueIndex(index: SchemaIndex, column: ColumnDecl): boolean {
  const target = column.ref ? index.refTarget(column.ref) : undefined;
  if (!target) return false;
  const t = target.table;
  const name = target.column.name;
  const single = (cols: readonly string[]): boolean => cols.length === 1 && cols[0] === name;
  const byTable =
    (single(t.primaryKey) && t.primaryKeyIndex === undefined) || target.column.unique || t.uniques.some(single);
  return !byTable && tableIndexes(t).some((i) => i.unique && single(i.columns));
}
