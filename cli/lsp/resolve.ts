/**
 * What the word under the cursor is: a keyword, an attribute, a setting, a
 * type, an operation, or a reference to something the schema declares (a
 * table, column, relation, enum, domain or security scheme). Hover and go
 * to definition both start here.
 */
import type { IToken } from "chevrotain";
import type {
  ClaimDecl,
  ColumnDecl,
  DomainDecl,
  EnumDecl,
  SecuritySchemeDecl,
  Span,
  TableDecl,
} from "../../language/ir.js";
import { contains, type Analysis, type Frame } from "./analysis.js";

/** The meaning of one token. */
export type Resolved =
  | { kind: "keyword"; word: string }
  | { kind: "attribute"; name: string }
  | { kind: "table-attribute"; name: string }
  | { kind: "setting"; block: SettingBlock; key: string }
  | { kind: "type"; name: string }
  | { kind: "op"; name: string }
  | { kind: "table"; table: TableDecl }
  | { kind: "column"; table: TableDecl; column: ColumnDecl }
  | { kind: "relation"; table: TableDecl; column: ColumnDecl }
  | { kind: "inverse"; table: TableDecl; column: ColumnDecl }
  | { kind: "enum"; decl: EnumDecl }
  | { kind: "domain"; decl: DomainDecl }
  | { kind: "scheme"; scheme: SecuritySchemeDecl }
  /** `claim.org` in a rule, or a claim's name where it is declared; `decl` absent for the implicit `sub`. */
  | { kind: "claim"; name: string; decl?: ClaimDecl }
  /** A role in an access header, `default_role` or `anonymous`; `span` where `roles` (or `anonymous`) declares it. */
  | { kind: "role"; name: string; span?: Span };

/** The blocks whose `key = value` settings have reference text. */
export type SettingBlock = "resource" | "api" | "generate" | "security" | "auth" | "jwt" | "database" | "access";

const HARD_KEYWORDS = new Set(["api", "auth", "generate", "enum", "domain", "table"]);
const SETTING_BLOCKS = new Set(["resource", "api", "generate", "security", "auth", "jwt", "database", "access"]);
const ACCESS_STATEMENTS = new Set(["rows", "check", "stamp", "hide"]);

/** True when the tokens from `index` read `access name[, name…] {`. */
function accessHeaderAt(a: Analysis, index: number): boolean {
  let i = index + 1;
  for (;;) {
    if (!/^[A-Za-z_]/.test(a.tokens[i]?.image ?? "")) return false;
    const after = a.tokens[i + 1]?.image;
    if (after === "{") return true;
    if (after !== ",") return false;
    i += 2;
  }
}

/** The role `name` as the auth block declares it, if it does. */
function role(a: Analysis, name: string): Resolved | undefined {
  const auth = a.schema.auth;
  if (!auth) return undefined;
  const at = auth.roles.indexOf(name);
  if (at >= 0) return { kind: "role", name, span: auth.roleSpans[at] };
  if (auth.anonymous === name) {
    const span = auth.settingSpans["anonymous"];
    return span ? { kind: "role", name, span } : { kind: "role", name };
  }
  return undefined;
}

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
  if ((word === "jwt" || word === "database") && top?.kind === "auth" && next === "{")
    return found({ kind: "keyword", word });
  if (word === "claim" && top?.kind === "auth" && next !== "=") return found({ kind: "keyword", word });
  if (word === "access" && top?.kind === "table" && accessHeaderAt(a, index)) return found({ kind: "keyword", word });
  if (
    ACCESS_STATEMENTS.has(word) &&
    top?.kind === "access" &&
    next !== "=" &&
    !["=", ".", "and", "or", "not"].includes(prev ?? "")
  )
    return found({ kind: "keyword", word });
  if (next === "=" && top && SETTING_BLOCKS.has(top.kind) && !(top.kind === "access" && word !== "ops")) {
    return found({ kind: "setting", block: top.kind as SettingBlock, key: word });
  }
  // docs/decisions/1367-access-rules.md: claims, roles, and the columns rules reach through a relation.
  if (prev === "." && a.tokens[index - 2]?.image === "claim") {
    const decl = a.schema.auth?.claims.find((c) => c.name === word);
    if (decl || word === "sub")
      return found(decl ? { kind: "claim", name: word, decl } : { kind: "claim", name: word });
  }
  if (top?.kind === "auth" && prev === "claim") {
    const decl = a.schema.auth?.claims.find((c) => contains(c.nameSpan, token.startOffset));
    if (decl) return found({ kind: "claim", name: word, decl });
  }
  if (top?.kind === "table") {
    let k = index;
    while (a.tokens[k - 1]?.image === "," && /^[A-Za-z_]/.test(a.tokens[k - 2]?.image ?? "")) k -= 2;
    if (a.tokens[k - 1]?.image === "access" && accessHeaderAt(a, k - 1)) {
      const r = role(a, word);
      if (r) return found(r);
    }
  }
  const rolePlace =
    (top?.kind === "auth" &&
      prev === "=" &&
      ["default_role", "anonymous"].includes(a.tokens[index - 2]?.image ?? "")) ||
    (top?.kind === "list" && top.key === "roles" && frames.at(-2)?.kind === "auth");
  if (rolePlace) {
    const r = role(a, word);
    if (r) return found(r);
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
  if (tableFrame && prev === "." && frames.some((f) => f.kind === "access")) {
    const relation = a.tokens[index - 2]?.image;
    const ref = table?.columns.find((c) => c.ref?.relation === relation)?.ref;
    const target = a.schema.tables.find((t) => t.name === ref?.target);
    const c = target?.columns.find((x) => x.name === word);
    if (target && c) return found({ kind: "column", table: target, column: c });
  }
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
    case "claim":
      return r.decl?.nameSpan;
    case "role":
      return r.span;
    default:
      return undefined;
  }
}
