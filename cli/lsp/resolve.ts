/**
 * What the word under the cursor is: a keyword, an attribute, a setting, a
 * type, an operation, or a reference to something the schema declares (a
 * table, column, relation, enum, domain or security scheme). Hover and go
 * to definition both start here.
 */
import type { IToken } from "chevrotain";
import type { ColumnDecl, DomainDecl, EnumDecl, SecuritySchemeDecl, Span, TableDecl } from "../../language/ir.js";
import { contains, type Analysis, type Frame } from "./analysis.js";

/** The meaning of one token. */
export type Resolved =
  | { kind: "keyword"; word: string }
  | { kind: "attribute"; name: string }
  | { kind: "table-attribute"; name: string }
  | { kind: "setting"; block: "resource" | "api" | "generate" | "security"; key: string }
  | { kind: "type"; name: string }
  | { kind: "op"; name: string }
  | { kind: "table"; table: TableDecl }
  | { kind: "column"; table: TableDecl; column: ColumnDecl }
  | { kind: "relation"; table: TableDecl; column: ColumnDecl }
  | { kind: "inverse"; table: TableDecl; column: ColumnDecl }
  | { kind: "enum"; decl: EnumDecl }
  | { kind: "domain"; decl: DomainDecl }
  | { kind: "scheme"; scheme: SecuritySchemeDecl };

const HARD_KEYWORDS = new Set(["api", "generate", "enum", "domain", "table"]);
const SETTING_BLOCKS = new Set(["resource", "api", "generate", "security"]);

function positional(a: Analysis, index: number): number {
  // The 0-based position of the argument at `index` inside its argument list (named ones count too).
  let depth = 0;
  let n = 0;
  for (let i = index - 1; i >= 0; i--) {
    const t = a.tokens[i]!.image;
    if (t === ")" || t === "]") depth++;
    else if (t === "(" || t === "[") {
      if (depth === 0) return n;
      depth--;
    } else if (t === "," && depth === 0) n++;
  }
  return n;
}

function byName(a: Analysis, name: string): Resolved | undefined {
  const t = a.schema.tables.find((x) => x.name === name);
  if (t) return { kind: "table", table: t };
  const e = a.schema.enums.find((x) => x.name === name);
  if (e) return { kind: "enum", decl: e };
  const d = a.schema.domains.find((x) => x.name === name);
  if (d) return { kind: "domain", decl: d };
  return undefined;
}

function typeAt(a: Analysis, offset: number): string | undefined {
  for (const t of a.schema.tables) for (const c of t.columns) if (contains(c.type.span, offset)) return c.type.name;
  for (const d of a.schema.domains) if (contains(d.base.span, offset)) return d.base.name;
  return undefined;
}

/** The meaning of the token at `offset`, with the token itself. */
export function resolve(a: Analysis, offset: number): { token: IToken; meaning: Resolved } | undefined {
  const at = a.tokenAt(offset);
  if (!at) return undefined;
  const { token, index } = at;
  const word = token.image;
  const frames: Frame[] = a.framesBefore(index);
  const top = frames.at(-1);
  const next = a.tokens[index + 1]?.image;
  const prev = a.tokens[index - 1]?.image;
  const found = (meaning: Resolved) => ({ token, meaning });

  if (word.startsWith("@@")) return found({ kind: "table-attribute", name: word.slice(2) });
  if (word.startsWith("@")) return found({ kind: "attribute", name: word.slice(1) });
  if (!/^[A-Za-z_]/.test(word)) return undefined;
  if (frames.length === 0 && HARD_KEYWORDS.has(word) && prev !== "domain") return found({ kind: "keyword", word });
  if (word === "resource" && top?.kind === "table" && next?.startsWith('"')) return found({ kind: "keyword", word });
  if (word === "security" && top?.kind === "api" && next !== "=") return found({ kind: "keyword", word });
  if (next === "=" && top && SETTING_BLOCKS.has(top.kind)) {
    return found({ kind: "setting", block: top.kind as "resource" | "api" | "generate" | "security", key: word });
  }

  const type = typeAt(a, token.startOffset);
  if (type !== undefined) return found(byName(a, type) ?? { kind: "type", name: type });

  const tableFrame = [...frames].reverse().find((f): f is { kind: "table"; name: string } => f.kind === "table");
  const table = tableFrame ? a.schema.tables.find((t) => t.name === tableFrame.name) : undefined;
  const args = [...frames].reverse().find((f): f is { kind: "args"; owner: string } => f.kind === "args");

  if (table && args?.owner === "@ref") {
    const col = table.columns.find((c) => c.ref && contains(c.ref.span, token.startOffset));
    if (col?.ref) {
      if (prev === ":" && a.tokens[index - 2]?.image === "column") {
        const target = a.schema.tables.find((t) => t.name === col.ref!.target);
        const c = target?.columns.find((x) => x.name === word);
        if (target && c) return found({ kind: "column", table: target, column: c });
      }
      const pos = positional(a, index);
      if (pos === 0 && word === col.ref.relation) return found({ kind: "relation", table, column: col });
      if (pos === 1 && word === col.ref.target) {
        const target = a.schema.tables.find((t) => t.name === word);
        if (target) return found({ kind: "table", table: target });
      }
    }
  }
  if (table && args?.owner === "@inverse" && top?.kind === "args") {
    const col = table.columns.find((c) => c.inverse && contains(c.inverse.span, token.startOffset));
    if (col?.inverse && word === col.inverse.name && positional(a, index) === 0)
      return found({ kind: "inverse", table, column: col });
  }
  if (top?.kind === "list" && top.key === "ops") return found({ kind: "op", name: word });
  if (top?.kind === "list" && top.key === "security") {
    const scheme = a.schema.api?.securitySchemes.find((s) => s.name === word);
    if (scheme) return found({ kind: "scheme", scheme });
  }
  if (top?.kind === "api" || top?.kind === "security") {
    const scheme = a.schema.api?.securitySchemes.find((s) => s.name === word);
    if (scheme && prev === "security") return found({ kind: "scheme", scheme });
  }
  if (table) {
    const c = table.columns.find((x) => x.name === word);
    if (c && (top?.kind !== "table" || contains(nameSpanOf(c), token.startOffset)))
      return found({ kind: "column", table, column: c });
    if (top?.kind === "table" && word === table.name) return found({ kind: "table", table });
  }
  const decl = a.schema.tables.find((t) => contains(t.nameSpan, token.startOffset));
  if (decl) return found({ kind: "table", table: decl });
  if (prev === "enum" || prev === "domain" || frames.length > 0 || prev === "::") {
    const named = byName(a, word);
    if (named) return found(named);
  }
  return undefined;
}

/** The span of a column's name (its declaration starts with it). */
export function nameSpanOf(c: ColumnDecl): Span {
  return { ...c.span, endLine: c.span.line, endColumn: c.span.column + c.name.length, length: c.name.length };
}

/** Where the thing a resolved token refers to is declared, if it is declared in the file. */
export function declarationSpan(r: Resolved): Span | undefined {
  switch (r.kind) {
    case "table":
      return r.table.nameSpan;
    case "column":
      return nameSpanOf(r.column);
    case "relation":
      return r.column.ref?.span;
    case "inverse":
      return r.column.inverse?.span;
    case "enum":
    case "domain":
      return r.decl.span;
    case "scheme":
      return r.scheme.span;
    default:
      return undefined;
  }
}
