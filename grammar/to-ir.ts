/**
 * CST → IR: builds a `Schema` from the parser's CST nodes, collecting every
 * problem as a diagnostic and never throwing (docs/language.md). Works in
 * two passes so declaration order does not matter: first every declaration
 * is read, then every type is checked against the enums and domains of the
 * whole file. Later duplicates of a table, enum, domain or block are
 * reported and left out of the IR
 * (docs/decisions/0103-keywords-newlines-and-duplicates.md).
 */
import type { CstNode } from "chevrotain";
import type { Diagnostic, DomainDecl, EnumDecl, Schema, TableDecl } from "../compiler/ir.js";
import { nameToken, node, nodes, token, tokens } from "./to-ir/cst.js";
import { unquote, type Ctx } from "./to-ir/context.js";
import { readAttribute, requirePositional, splitArgs } from "./to-ir/args.js";
import { expectString } from "./to-ir/expect.js";
import { readApi, readGenerate } from "./to-ir/settings.js";
import { readTable } from "./to-ir/table.js";
import { checkType, readType, type ReadType } from "./to-ir/types.js";
import { didYouMean } from "./suggest.js";

function readEnum(n: CstNode, ctx: Ctx): EnumDecl | undefined {
  const keyword = token(n, "Enum");
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const e: EnumDecl = { name: name.image, values: [], span: ctx.nodeSpan(n, keyword) };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) e.doc = doc;
  const members = [...nodes(n, "member").map((m) => nameToken(m)), ...tokens(n, "member")]
    .filter((t) => t !== undefined)
    .sort((a, b) => a.startOffset - b.startOffset);
  for (const m of members) {
    const value = m.image.startsWith('"') ? unquote(m.image) : m.image;
    if (e.values.includes(value)) {
      ctx.error("duplicate-enum-value", `Duplicate value "${value}" in enum "${e.name}"`, ctx.tok(m));
      continue;
    }
    e.values.push(value);
  }
  return e;
}

function readDomain(n: CstNode, ctx: Ctx, schema: Schema, types: ReadType[]): void {
  const keyword = token(n, "Domain");
  const name = nameToken(node(n, "name"));
  if (!name) return;
  const base = readType(node(n, "typeRef"), ctx);
  if (schema.domains.some((d) => d.name === name.image)) {
    ctx.error("duplicate-domain", `Domain "${name.image}" is already declared`, ctx.tok(name));
    return;
  }
  types.push(base);
  const domain: DomainDecl = { name: name.image, base: base.type, span: ctx.nodeSpan(n, keyword) };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) domain.doc = doc;
  if (base.nullable)
    ctx.error("invalid-type", `A domain's base type cannot be nullable: remove the "?"`, base.type.span);
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, ctx);
    if (!use) continue;
    if (use.name !== "check") {
      const hint = didYouMean(use.name, ["check"], "@");
      ctx.error(
        "unknown-attribute",
        `Unknown domain attribute "${use.written}": a domain takes only @check("…")${hint}`,
        use.nameSpan,
      );
      continue;
    }
    if (domain.check !== undefined) {
      ctx.error("duplicate-attribute", `Duplicate attribute "@check" on domain "${domain.name}"`, use.nameSpan);
      continue;
    }
    const usage = `@check("VALUE > 0")`;
    const split = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, split, 1, usage, ctx)) continue;
    const sql = expectString(split.positional[0]!.value, { what: "@check", code: "invalid-argument" }, ctx);
    if (sql !== undefined) domain.check = sql;
  }
  schema.domains.push(domain);
}

/**
 * Builds the schema of one file from CST roots given in source order: the
 * roots of one parse (several when the parser resumed after unparseable
 * text), or one root per declaration when `parse` parses declaration by
 * declaration so each CST can be dropped once read (issue #13). `finish`
 * checks every type against the file's enums and domains and returns the
 * schema with the IR-building diagnostics (lexical and syntax diagnostics
 * are the caller's).
 */
export class SchemaBuilder {
  private readonly schema: Schema;
  private readonly types: ReadType[] = [];
  private readonly tableByName = new Map<string, TableDecl>();

  constructor(
    file: string,
    private readonly ctx: Ctx,
  ) {
    this.schema = { file, enums: [], domains: [], tables: [] };
  }

  /** Reads every declaration under `root`: blocks, enums, domains, then tables. */
  add(root: CstNode): void {
    const { schema, ctx, types } = this;
    for (const n of nodes(root, "apiDecl")) {
      const api = readApi(n, ctx, token(n, "Api"));
      if (schema.api)
        ctx.error(
          "duplicate-block",
          `The api block is already declared at line ${schema.api.span.line}`,
          ctx.tok(token(n, "Api") ?? token(n, "LCurly")!),
        );
      else schema.api = api;
    }
    for (const n of nodes(root, "generateDecl")) {
      const g = readGenerate(n, ctx);
      if (schema.generate)
        ctx.error(
          "duplicate-block",
          `The generate block is already declared at line ${schema.generate.span.line}`,
          ctx.tok(token(n, "Generate")!),
        );
      else schema.generate = g;
    }
    for (const n of nodes(root, "enumDecl")) {
      const e = readEnum(n, ctx);
      if (!e) continue;
      if (schema.enums.some((x) => x.name === e.name)) {
        ctx.error("duplicate-enum", `Enum "${e.name}" is already declared`, ctx.tok(nameToken(node(n, "name"))!));
        continue;
      }
      schema.enums.push(e);
    }
    for (const n of nodes(root, "domainDecl")) readDomain(n, ctx, schema, types);
    for (const n of nodes(root, "tableDecl")) {
      const t = readTable(n, ctx);
      if (!t) continue;
      const first = this.tableByName.get(t.table.name);
      if (first) {
        ctx.error(
          "duplicate-table",
          `Table "${t.table.name}" is already declared at line ${first.span.line}`,
          t.table.nameSpan,
        );
        continue;
      }
      this.tableByName.set(t.table.name, t.table);
      schema.tables.push(t.table);
      types.push(...t.types);
    }
  }

  /** Checks the types read so far and returns the schema and the diagnostics. */
  finish(): { schema: Schema; diagnostics: Diagnostic[] } {
    const userTypes = new Set([...this.schema.enums.map((e) => e.name), ...this.schema.domains.map((d) => d.name)]);
    for (const t of this.types) checkType(t, userTypes, this.ctx);
    return { schema: this.schema, diagnostics: this.ctx.diagnostics };
  }
}
