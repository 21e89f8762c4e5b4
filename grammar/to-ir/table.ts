/**
 * Tables and their columns (docs/language.md, Tables and Columns). Later
 * duplicates of a column or resource block are reported and left out of the
 * IR, so the IR stays a faithful map from names to declarations
 * (docs/decisions/0103-keywords-newlines-and-duplicates.md).
 */
import type { CstNode } from "chevrotain";
import { plainColumn, type ColumnDecl, type TableDecl } from "../../language/ir.js";
import { nameToken, node, nodes, token } from "./cst.js";
import type { Ctx } from "./context.js";
import { readAttribute } from "./args.js";
import { applyColumnAttribute } from "./attributes.js";
import { applyBlockAttribute, type BlockFacts } from "./block-attributes.js";
import { readResource } from "./resource.js";
import { readAccess } from "./access.js";
import { readType, type ReadType } from "./types.js";

/** A column together with its type as read, so the type can be checked once every enum and domain is known. */
export interface ColumnWithType {
  column: ColumnDecl;
  type: ReadType;
}

function readColumn(n: CstNode, ctx: Ctx): ColumnWithType | undefined {
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const type = readType(node(n, "typeRef"), ctx);
  const column = plainColumn(name.image, type.type, type.nullable, ctx.nodeSpan(n, name));
  const doc = ctx.docs.docFor(name);
  if (doc !== undefined) column.doc = doc;
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, ctx);
    if (use) applyColumnAttribute(use, column, ctx);
  }
  return { column, type };
}

/**
 * Builds a table from a `tableDecl` node; returns the columns' types for the
 * later type check. Reports `duplicate-column`, `duplicate-resource` and
 * `duplicate-primary-key` (inline `@primary_key` on several columns, or
 * together with `@@primary_key`); its `access` blocks are read in source
 * order (docs/decisions/1367-access-rules.md).
 */
export function readTable(n: CstNode, ctx: Ctx): { table: TableDecl; types: ReadType[] } | undefined {
  const keyword = token(n, "Table");
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const table: TableDecl = {
    name: name.image,
    columns: [],
    ignored: [],
    primaryKey: [],
    indexes: [],
    uniques: [],
    scoped: false,
    access: [],
    span: ctx.nodeSpan(n, keyword),
    nameSpan: ctx.tok(name),
  };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) table.doc = doc;
  const types: ReadType[] = [];
  for (const c of nodes(n, "columnDecl")) {
    const read = readColumn(c, ctx);
    if (!read) continue;
    const first = [...table.columns, ...table.ignored].find((x) => x.name === read.column.name);
    if (first) {
      ctx.error(
        "duplicate-column",
        `Duplicate column "${read.column.name}" in table "${table.name}" (first declared at line ${first.span.line})`,
        ctx.tok(nameToken(node(c, "name"))!),
      );
      continue;
    }
    // An @ignore column is the database's alone: kept apart so only the SQL backend and the checks see it.
    if (read.column.attributes.some((a) => a.name === "ignore")) table.ignored.push(read.column);
    else table.columns.push(read.column);
    types.push(read.type);
  }
  const facts: BlockFacts = { indexes: [], uniques: [], scoped: false };
  for (const b of nodes(n, "blockAttribute")) {
    const use = readAttribute(b, ctx);
    if (use) applyBlockAttribute(use, facts, ctx);
  }
  table.indexes = facts.indexes;
  table.uniques = facts.uniques;
  table.scoped = facts.scoped;
  if (facts.renamedFrom !== undefined) table.renamedFrom = facts.renamedFrom;
  if (facts.dbName !== undefined) table.dbName = facts.dbName;
  if (facts.schema !== undefined) table.schema = facts.schema;
  const inline = table.columns.filter((c) => c.primaryKey);
  if (facts.primaryKey) {
    table.primaryKey = facts.primaryKey.columns;
    if (facts.primaryKey.index !== undefined) table.primaryKeyIndex = facts.primaryKey.index;
    for (const c of inline) {
      const at = c.attributes.find((a) => a.name === "primary_key")!;
      ctx.error(
        "duplicate-primary-key",
        `Column "${c.name}" is marked @primary_key but the table also declares @@primary_key at line ${facts.primaryKey.span.line}: keep one`,
        at.span,
      );
    }
  } else {
    table.primaryKey = inline.slice(0, 1).map((c) => c.name);
    for (const c of inline.slice(1)) {
      const at = c.attributes.find((a) => a.name === "primary_key")!;
      ctx.error(
        "duplicate-primary-key",
        `Only one column can carry @primary_key ("${inline[0]!.name}" already does): declare a composite key with @@primary_key([${inline.map((x) => x.name).join(", ")}])`,
        at.span,
      );
    }
  }
  for (const r of nodes(n, "resourceDecl")) {
    const resource = readResource(r, ctx, types);
    if (table.resource) {
      ctx.error(
        "duplicate-resource",
        `Table "${table.name}" already has a resource block at line ${table.resource.span.line}: a table is exposed at one path`,
        ctx.tok(token(r, "Resource")!),
      );
      continue;
    }
    table.resource = resource;
  }
  for (const a of nodes(n, "accessDecl")) table.access.push(readAccess(a, ctx));
  return { table, types };
}
