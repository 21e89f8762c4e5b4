/**
 * What the language server knows about one open document: the compiler's
 * own result (`compileSource`, so the editor and `resc check` never
 * disagree), the tokens, and where a position sits — inside which block,
 * argument list or list (the "frames" around it).
 */
import type { IToken } from "chevrotain";
import { IncrementalCompiler, type CompileResult } from "../../compiler/compile.js";
import type { ColumnDecl, Schema, Span, TableDecl } from "../../language/ir.js";
import { lex, lexRange } from "../../grammar/lexer.js";
import { SourceMap } from "../../grammar/span.js";

/** A construct that encloses a position. */
export type Frame =
  | { kind: "api" | "generate" | "security" | "enum" | "resource" | "block" | "auth" | "jwt" | "database" | "access" }
  | { kind: "table"; name: string }
  /** `( … )` after `@attr`, `@@attr` or a call name; `owner` is that token's text. */
  | { kind: "args"; owner: string }
  /** `[ … ]` after `key =` or `key:` (or `hide`, docs/decisions/1367-access-rules.md); `key` is "" for a bare list. */
  | { kind: "list"; key: string };

const BLOCK_KINDS = [
  "api",
  "generate",
  "security",
  "enum",
  "resource",
  "block",
  "table",
  "auth",
  "jwt",
  "database",
  "access",
];

/** True when the "{" at `i` closes an `access role, …` header. */
function opensAccess(ts: readonly IToken[], i: number): boolean {
  let k = i - 1;
  while (k >= 2 && ts[k - 1]!.image === ",") k -= 2;
  return k >= 1 && /^[A-Za-z_]/.test(ts[k]!.image) && ts[k - 1]!.image === "access";
}

/** The compiled document and the helpers that locate things in it. */
export class Analysis {
  readonly result: CompileResult;
  readonly tokens: IToken[];
  private source: SourceMap | undefined;

  /**
   * The analysis of `text` from its compiled form; by default compiled here,
   * whole. The server passes what {@link Analysis.compile} or
   * {@link Analysis.retext} made.
   */
  constructor(
    readonly text: string,
    readonly file: string,
    compiled: { result: CompileResult; tokens: IToken[] } = Analysis.compiled(text, file, new IncrementalCompiler()),
  ) {
    this.result = compiled.result;
    this.tokens = compiled.tokens;
  }

  /**
   * `text` compiled by `compiler`, which keeps the readings of the
   * declarations an edit did not touch from the document's previous version
   * (bench/COMPILER.md).
   */
  static compile(text: string, file: string, compiler: IncrementalCompiler): Analysis {
    return new Analysis(text, file, Analysis.compiled(text, file, compiler));
  }

  private static compiled(
    text: string,
    file: string,
    compiler: IncrementalCompiler,
  ): { result: CompileResult; tokens: IToken[] } {
    const result = compiler.compile(text, file);
    return { result, tokens: result.tokens };
  }

  /**
   * `text` (a newer version of the same document) with its own tokens but
   * this analysis's schema: what completion answers from while the new
   * version is not compiled yet, so a keystroke's completion does not wait
   * for a compile of the whole file (bench/COMPILER.md). The schema may be one edit
   * behind. Only the top-level declaration around `offset` is lexed (a
   * position's frames never reach outside it), unless that cannot be done
   * safely (the edit opened a comment or string), then the whole text.
   */
  retext(text: string, offset: number): Analysis {
    const tokens = this.declarationTokens(text, offset) ?? lex(text, new SourceMap(this.file, text)).tokens;
    return new Analysis(text, this.file, { result: this.result, tokens });
  }

  /** The tokens of the declaration around `offset` in `text`, at their places in `text`; nothing when unsure. */
  private declarationTokens(text: string, offset: number): IToken[] | undefined {
    const old = this.text;
    let same = 0;
    const max = Math.min(old.length, text.length);
    while (same < max && old.charCodeAt(same) === text.charCodeAt(same)) same++;
    const delta = text.length - old.length;
    // Where each top-level declaration starts in the new text: unchanged before the edit, moved by `delta` after it.
    const s = this.schema;
    const starts = [
      s.api?.span,
      s.auth?.span,
      s.generate?.span,
      ...s.enums.map((e) => e.span),
      ...s.domains.map((d) => d.span),
    ]
      .concat(s.tables.map((t) => t.span))
      .filter((span): span is Span => span !== undefined)
      .map((span) => (span.offset < same ? span.offset : span.offset + delta))
      .sort((a, b) => a - b);
    let from = -1;
    let to = text.length;
    for (const start of starts) {
      if (start <= offset) from = start;
      else {
        to = start;
        break;
      }
    }
    if (from < 0 || !/^(table|enum|domain|api|auth|generate)\b/.test(text.slice(from, from + 9))) return undefined;
    const lexed = lexRange(text, from, to, this.file);
    return lexed.problems.every((code) => code === "unexpected-character") ? lexed.tokens : undefined;
  }

  /** The schema as far as it was built. */
  get schema(): Schema {
    return this.result.schema;
  }

  /** The token covering `offset` (a token that ends exactly at `offset` counts, so a cursor right after a word finds it). */
  tokenAt(offset: number): { token: IToken; index: number } | undefined {
    for (let i = 0; i < this.tokens.length; i++) {
      const t = this.tokens[i]!;
      if (t.startOffset > offset) break;
      if (offset <= t.startOffset + t.image.length) {
        const next = this.tokens[i + 1];
        // Between two touching tokens, prefer the word the cursor is on.
        if (
          offset === t.startOffset + t.image.length &&
          next &&
          next.startOffset === offset &&
          /^[@A-Za-z_]/.test(next.image)
        )
          return { token: next, index: i + 1 };
        return { token: t, index: i };
      }
    }
    return undefined;
  }

  /** The frames around the tokens before index `end` (exclusive), outermost first. */
  framesBefore(end: number): Frame[] {
    const stack: Frame[] = [];
    const ts = this.tokens;
    for (let i = 0; i < end && i < ts.length; i++) {
      const t = ts[i]!.image;
      const p1 = ts[i - 1]?.image;
      const p2 = ts[i - 2]?.image;
      if (t === "{") {
        if (p1 === "api" || p1 === "generate" || p1 === "auth" || p1 === "jwt") stack.push({ kind: p1 });
        // `database {` is a block only inside `auth` (docs/decisions/1368-database-row-level-security.md).
        else if (p1 === "database" && stack.at(-1)?.kind === "auth") stack.push({ kind: "database" });
        else if (p2 === "security") stack.push({ kind: "security" });
        else if (p2 === "enum") stack.push({ kind: "enum" });
        else if (p2 === "table" && p1 !== undefined) stack.push({ kind: "table", name: p1 });
        else if (p2 === "resource") stack.push({ kind: "resource" });
        else if (opensAccess(ts, i)) stack.push({ kind: "access" });
        else stack.push({ kind: "block" });
      } else if (t === "(") {
        stack.push({ kind: "args", owner: p1 ?? "" });
      } else if (t === "[") {
        const keyed = (p1 === "=" || p1 === ":") && p2 !== undefined;
        stack.push({ kind: "list", key: keyed ? p2 : p1 === "hide" ? "hide" : "" });
      } else if (t === "}" || t === ")" || t === "]") {
        const kinds = t === "}" ? BLOCK_KINDS : t === ")" ? ["args"] : ["list"];
        // Pop to the nearest matching opener, tolerating a bracket left open inside it.
        let j = stack.length - 1;
        while (j >= 0 && !kinds.includes(stack[j]!.kind)) j--;
        if (j >= 0) stack.length = j;
      }
    }
    return stack;
  }

  /** The index of the first token starting at or after `offset`. */
  indexAt(offset: number): number {
    let i = 0;
    while (i < this.tokens.length && this.tokens[i]!.startOffset < offset) i++;
    return i;
  }

  /** The innermost table declared around `offset`, by its span in the IR. */
  tableAt(offset: number): TableDecl | undefined {
    return this.schema.tables.find((t) => contains(t.span, offset));
  }

  /** The column of `table` declared on the lines around `offset` (the one being written at a cursor). */
  columnAt(table: TableDecl, offset: number): ColumnDecl | undefined {
    const line = this.lineOf(offset);
    let best: ColumnDecl | undefined;
    for (const c of table.columns) {
      if (c.span.offset <= offset && c.span.line <= line && line <= c.span.endLine) {
        if (!best || c.span.offset > best.span.offset) best = c;
      }
    }
    return best;
  }

  /** 1-based line of an offset. */
  lineOf(offset: number): number {
    this.source ??= new SourceMap(this.file, this.text);
    return this.source.position(offset).line;
  }
}

/** True when `offset` lies in `span` (its end included, so a cursor just after the last character counts). */
export function contains(span: Span, offset: number): boolean {
  return span.offset <= offset && offset <= span.offset + span.length;
}
