/**
 * Declarations and the names they use: tables, columns, enum values and
 * types are declared once; every column list (`@@primary_key`, `@@index`,
 * `@@unique`) names columns of its table. Enums, domains and tables share
 * PostgreSQL's type namespace (a table is also a row type), and none may
 * take the name of a built-in type, which would change what that name means
 * everywhere in the schema.
 */
import { withHint } from "./context.js";
import { storedColumns, type Span, type TableDecl } from "../../language/ir.js";

/**
 * What an `@ignore` column may carry: how the database stores it (`@map`, `@default`, `@unique`, `@check`,
 * `@renamed_from`); anything about serving it would be a promise resc does not keep (`ignored-column-capability`).
 * A primary key cannot be ignored: rows are served by it.
 */
const IGNORED_MAY_CARRY = new Set(["ignore", "map", "default", "unique", "check", "renamed_from"]);

function checkIgnored(ctx: ValidationContext, table: TableDecl): void {
  for (const c of table.ignored) {
    for (const a of c.attributes)
      if (!IGNORED_MAY_CARRY.has(a.name))
        ctx.error(
          "ignored-column-capability",
          `column "${c.name}" is @ignore: resc never reads or writes it, so @${a.name} has no effect; remove one of them`,
          a.span,
        );
    if (table.primaryKey.includes(c.name))
      ctx.error(
        "ignored-column-capability",
        `column "${c.name}" is part of the primary key, which addresses every row: it cannot be @ignore`,
        c.span,
      );
  }
}
import { lookupBuiltin } from "../../language/types.js";
import type { ValidationContext } from "./context.js";

function checkTypeNamespace(ctx: ValidationContext): void {
  const seen = new Map<string, string>();
  const declare = (kind: string, name: string, span: Span): void => {
    const first = seen.get(name);
    if (first) {
      ctx.error("duplicate-name", `${kind} "${name}" has the name of an earlier ${first}`, span);
    } else {
      seen.set(name, kind);
    }
    if (kind !== "table" && lookupBuiltin(name)) {
      ctx.error(
        "type-shadows-builtin",
        `${kind} "${name}" has the name of the built-in type "${lookupBuiltin(name)?.name}"`,
        span,
      );
    }
  };
  const all = [
    ...ctx.index.schema.enums.map((e) => ({ kind: "enum", name: e.name, span: e.span })),
    ...ctx.index.schema.domains.map((d) => ({ kind: "domain", name: d.name, span: d.span })),
    ...ctx.index.schema.tables.map((t) => ({ kind: "table", name: t.name, span: t.nameSpan })),
  ].sort((a, b) => a.span.offset - b.span.offset);
  for (const d of all) declare(d.kind, d.name, d.span);
}

/** `schema.name` as the database has it: what two declarations must not share (docs/decisions/1257-database-names.md). */
function databaseKey(d: { name: string; dbName?: string; schema?: string }): string {
  return `${d.schema ?? "public"}.${d.dbName ?? d.name}`;
}

/**
 * Two declarations of different names that `@map`/`@schema` send to one
 * database object (a type or table of one namespace, a column of one
 * table) would be one object in the DDL: `duplicate-database-name`.
 */
function checkDatabaseNames(ctx: ValidationContext): void {
  const schema = ctx.index.schema;
  const types = new Map<string, string>();
  const all = [
    ...schema.enums.map((e) => ({ kind: "enum", decl: e, span: e.span })),
    ...schema.domains.map((d) => ({ kind: "domain", decl: d, span: d.span })),
    ...schema.tables.map((t) => ({ kind: "table", decl: t, span: t.nameSpan })),
  ].sort((a, b) => a.span.offset - b.span.offset);
  for (const { kind, decl, span } of all) {
    const key = databaseKey(decl);
    const first = types.get(key);
    if (first === undefined) types.set(key, `${kind} "${decl.name}"`);
    else if (!first.endsWith(` "${decl.name}"`))
      ctx.error(
        "duplicate-database-name",
        `${kind} "${decl.name}" is ${key} in the database, as ${first} is already: give one of them another @map or @schema`,
        span,
      );
  }
  for (const table of schema.tables) {
    const columns = new Map<string, string>();
    for (const c of storedColumns(table)) {
      const key = c.dbName ?? c.name;
      const first = columns.get(key);
      if (first === undefined) columns.set(key, c.name);
      else if (first !== c.name)
        ctx.error(
          "duplicate-database-name",
          `column "${c.name}" is "${key}" in the database, as column "${first}" of table "${table.name}" is already`,
          c.span,
        );
    }
  }
}

/** PostgreSQL's built-in index access methods. */
const INDEX_METHODS = ["btree", "hash", "gist", "spgist", "gin", "brin"];

function checkColumnLists(ctx: ValidationContext, table: TableDecl): void {
  // An @@index may cover an @ignore column (Pagila's GiST index on film.fulltext); a key may not.
  const names = new Set(storedColumns(table).map((c) => c.name));
  const need = (cols: readonly string[], what: string, span: Span): void => {
    for (const col of cols) {
      if (!names.has(col)) {
        ctx.error(
          "unknown-column",
          withHint(`${what} names "${col}", which is not a column of table "${table.name}"`, col, names),
          span,
        );
      }
    }
  };
  need(table.primaryKey, "the primary key", table.nameSpan);
  checkIgnored(ctx, table);
  for (const index of table.indexes) {
    need(index.columns, "@@index", index.span);
    if (index.using !== undefined && !INDEX_METHODS.includes(index.using.toLowerCase())) {
      ctx.error(
        "unknown-index-method",
        `index method "${index.using}" is not one of ${INDEX_METHODS.join(", ")}`,
        index.span,
      );
    }
  }
  // @@unique carries no span of its own in the IR; the table name stands in.
  for (const unique of table.uniques) need(unique, "@@unique", table.nameSpan);
}

/** Reports `duplicate-name`, `duplicate-database-name`, `type-shadows-builtin`, `unknown-column` and
 * `unknown-index-method` (duplicate columns, enum values and attributes are the parser's to report). */
export function checkNames(ctx: ValidationContext): void {
  checkTypeNamespace(ctx);
  checkDatabaseNames(ctx);
  for (const table of ctx.index.schema.tables) checkColumnLists(ctx, table);
}
