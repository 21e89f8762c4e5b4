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
import type {
  ApiDecl,
  AuthDecl,
  Diagnostic,
  DomainDecl,
  EnumDecl,
  GenerateDecl,
  Schema,
  Span,
  TableDecl,
} from "../language/ir.js";
import { nameToken, node, nodes, token, tokens } from "./to-ir/cst.js";
import { Ctx, unquote } from "./to-ir/context.js";
import { readAttribute, requirePositional, splitArgs } from "./to-ir/args.js";
import { expectString } from "./to-ir/expect.js";
import { readApi, readGenerate } from "./to-ir/settings.js";
import { readTable } from "./to-ir/table.js";
import { readAuth } from "./to-ir/auth.js";
import { checkType, readType, type ReadType } from "./to-ir/types.js";
import { didYouMean } from "../language/suggest.js";
import { readDatabaseName } from "./to-ir/db-name.js";
import type { AttrUse } from "./to-ir/args.js";

/**
 * Applies `@map("…")` or `@schema("…")` to an enum or a domain: where its
 * type lives in the database (docs/decisions/1257-database-names.md).
 * Returns false for any other attribute, which the caller reports.
 */
function applyTypeLocation(use: AttrUse, decl: EnumDecl | DomainDecl, what: string, ctx: Ctx): boolean {
  if (use.name !== "map" && use.name !== "schema") return false;
  const field = use.name === "map" ? "dbName" : "schema";
  if (decl[field] !== undefined) {
    ctx.error("duplicate-attribute", `Duplicate attribute "${use.written}" on ${what} "${decl.name}"`, use.nameSpan);
    return true;
  }
  const name = readDatabaseName(use, ctx);
  if (name !== undefined) decl[field] = name;
  return true;
}

function readEnum(n: CstNode, ctx: Ctx): EnumDecl | undefined {
  const keyword = token(n, "Enum");
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const e: EnumDecl = { name: name.image, values: [], span: ctx.nodeSpan(n, keyword) };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) e.doc = doc;
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, ctx);
    if (!use || applyTypeLocation(use, e, "enum", ctx)) continue;
    const hint = didYouMean(use.name, ["map", "schema"], "@");
    ctx.error(
      "unknown-attribute",
      `Unknown enum attribute "${use.written}": an enum takes only @map("…") and @schema("…")${hint}`,
      use.nameSpan,
    );
  }
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

function readDomain(n: CstNode, ctx: Ctx): DeclarationRead | undefined {
  const keyword = token(n, "Domain");
  const name = nameToken(node(n, "name"));
  if (!name) return undefined;
  const base = readType(node(n, "typeRef"), ctx);
  // What follows the base type is reported only for the first domain of a name: collected apart, kept at assembly.
  const rest = new Ctx(ctx.source, ctx.docs);
  const domain: DomainDecl = { name: name.image, base: base.type, span: rest.nodeSpan(n, keyword) };
  const doc = rest.docs.docFor(keyword);
  if (doc !== undefined) domain.doc = doc;
  if (base.nullable)
    rest.error("invalid-type", `A domain's base type cannot be nullable: remove the "?"`, base.type.span);
  for (const a of nodes(n, "attribute")) {
    const use = readAttribute(a, rest);
    if (!use || applyTypeLocation(use, domain, "domain", rest)) continue;
    if (use.name !== "check") {
      const hint = didYouMean(use.name, ["check", "map", "schema"], "@");
      rest.error(
        "unknown-attribute",
        `Unknown domain attribute "${use.written}": a domain takes only @check("…"), @map("…") and @schema("…")${hint}`,
        use.nameSpan,
      );
      continue;
    }
    if (domain.check !== undefined) {
      rest.error("duplicate-attribute", `Duplicate attribute "@check" on domain "${domain.name}"`, use.nameSpan);
      continue;
    }
    const usage = `@check("VALUE > 0")`;
    const split = splitArgs(use, [], 1, usage, rest);
    if (!requirePositional(use, split, 1, usage, rest)) continue;
    const sql = expectString(split.positional[0]!.value, { what: "@check", code: "invalid-argument" }, rest);
    if (sql !== undefined) domain.check = sql;
  }
  return { kind: "domain", domain, nameSpan: ctx.tok(name), base, rest: rest.diagnostics };
}

/**
 * One top-level declaration as read from its CST, before the checks that
 * look across declarations (duplicates, the type check): what
 * {@link SchemaBuilder} assembles, and what the language server keeps per
 * declaration between edits (grammar/incremental.ts, bench/COMPILER.md).
 */
export type DeclarationRead =
  | { kind: "api"; api: ApiDecl; at: Span }
  /** `types`: the claims' types, checked with the file's. */
  | { kind: "auth"; auth: AuthDecl; at: Span; types: ReadType[] }
  | { kind: "generate"; generate: GenerateDecl; at: Span }
  | { kind: "enum"; enum: EnumDecl; nameSpan: Span }
  /** `rest`: the diagnostics after the base type, kept only when the name is not a duplicate. */
  | { kind: "domain"; domain: DomainDecl; nameSpan: Span; base: ReadType; rest: Diagnostic[] }
  | { kind: "table"; table: TableDecl; nameSpan: Span; types: ReadType[] };

/**
 * Reads every declaration under `root`, reporting what each declaration
 * alone shows to `ctx`: blocks first, then enums, domains and tables, each
 * kind in source order.
 */
export function readDeclarations(root: CstNode, ctx: Ctx): DeclarationRead[] {
  const out: DeclarationRead[] = [];
  for (const n of nodes(root, "apiDecl")) {
    out.push({
      kind: "api",
      api: readApi(n, ctx, token(n, "Api")),
      at: ctx.tok(token(n, "Api") ?? token(n, "LCurly")!),
    });
  }
  for (const n of nodes(root, "authDecl")) {
    const types: ReadType[] = [];
    out.push({ kind: "auth", auth: readAuth(n, ctx, types), at: ctx.tok(token(n, "Auth")!), types });
  }
  for (const n of nodes(root, "generateDecl")) {
    out.push({ kind: "generate", generate: readGenerate(n, ctx), at: ctx.tok(token(n, "Generate")!) });
  }
  for (const n of nodes(root, "enumDecl")) {
    const e = readEnum(n, ctx);
    if (e) out.push({ kind: "enum", enum: e, nameSpan: ctx.tok(nameToken(node(n, "name"))!) });
  }
  for (const n of nodes(root, "domainDecl")) {
    const d = readDomain(n, ctx);
    if (d) out.push(d);
  }
  for (const n of nodes(root, "tableDecl")) {
    const t = readTable(n, ctx);
    if (t) out.push({ kind: "table", table: t.table, nameSpan: t.table.nameSpan, types: t.types });
  }
  return out;
}

/**
 * Builds the schema of one file from its declarations in source order: the
 * CST roots of one parse (several when the parser resumed after unparseable
 * text), one root per declaration when `parse` goes declaration by
 * declaration, or reads the language server kept from an earlier version
 * (bench/COMPILER.md). Reports later duplicates of a block, enum, domain or table
 * and leaves them out; `finish` checks every type against the file's enums
 * and domains and returns the schema with the IR-building diagnostics
 * (lexical and syntax diagnostics are the caller's).
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

  /** Reads and takes every declaration under `root`. */
  add(root: CstNode): void {
    this.take(readDeclarations(root, this.ctx));
  }

  /** Takes declarations already read, in order. */
  take(reads: readonly DeclarationRead[]): void {
    const { schema, ctx } = this;
    for (const r of reads) {
      switch (r.kind) {
        case "api":
          if (schema.api)
            ctx.error("duplicate-block", `The api block is already declared at line ${schema.api.span.line}`, r.at);
          else schema.api = r.api;
          break;
        case "auth":
          if (schema.auth)
            ctx.error("duplicate-block", `The auth block is already declared at line ${schema.auth.span.line}`, r.at);
          else {
            this.types.push(...r.types);
            schema.auth = r.auth;
          }
          break;
        case "generate":
          if (schema.generate) {
            ctx.error(
              "duplicate-block",
              `The generate block is already declared at line ${schema.generate.span.line}`,
              r.at,
            );
          } else schema.generate = r.generate;
          break;
        case "enum":
          if (schema.enums.some((x) => x.name === r.enum.name)) {
            ctx.error("duplicate-enum", `Enum "${r.enum.name}" is already declared`, r.nameSpan);
          } else schema.enums.push(r.enum);
          break;
        case "domain":
          if (schema.domains.some((d) => d.name === r.domain.name)) {
            ctx.error("duplicate-domain", `Domain "${r.domain.name}" is already declared`, r.nameSpan);
          } else {
            this.types.push(r.base);
            ctx.diagnostics.push(...r.rest);
            schema.domains.push(r.domain);
          }
          break;
        case "table": {
          const first = this.tableByName.get(r.table.name);
          if (first) {
            ctx.error(
              "duplicate-table",
              `Table "${r.table.name}" is already declared at line ${first.span.line}`,
              r.nameSpan,
            );
          } else {
            this.tableByName.set(r.table.name, r.table);
            schema.tables.push(r.table);
            this.types.push(...r.types);
          }
        }
      }
    }
  }

  /** Checks the types read so far and returns the schema and the diagnostics. */
  finish(): { schema: Schema; diagnostics: Diagnostic[] } {
    const userTypes = new Set([...this.schema.enums.map((e) => e.name), ...this.schema.domains.map((d) => d.name)]);
    for (const t of this.types) checkType(t, userTypes, this.ctx);
    return { schema: this.schema, diagnostics: this.ctx.diagnostics };
  }
}
