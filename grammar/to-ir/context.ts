/**
 * State shared while one file is turned into IR: where diagnostics go, how
 * offsets become spans, and which doc comments belong to which declaration.
 */
import type { CstNode, IToken } from "chevrotain";
import type { Diagnostic, Span } from "../../language/ir.js";
import { firstAtOrAfter, type SourceMap } from "../span.js";
import { offsetRange } from "./cst.js";

/**
 * Finds the `///` doc comments of a declaration: the run of doc comments
 * after the previous significant token and before the declaration's first
 * token (docs/language.md, Doc comments).
 */
export class DocIndex {
  constructor(
    private readonly tokens: IToken[],
    private readonly docs: IToken[],
  ) {}

  /** The doc text for a declaration starting at `first`: lines without `///` and one leading space, joined with `\n`. */
  docFor(first: IToken | undefined): string | undefined {
    if (!first || this.docs.length === 0) return undefined;
    const start = first.startOffset;
    const lo = firstAtOrAfter(this.tokens, start);
    const prevEnd = lo > 0 ? this.tokens[lo - 1]!.startOffset + this.tokens[lo - 1]!.image.length : -1;
    // Both lists are in source order: binary search keeps this logarithmic per declaration (bench/COMPILER.md).
    const lines: string[] = [];
    for (let i = firstAtOrAfter(this.docs, prevEnd); i < this.docs.length; i++) {
      const d = this.docs[i]!;
      if (d.startOffset >= start) break;
      lines.push(d.image.slice(3).replace(/^ /, "").trimEnd());
    }
    return lines.length > 0 ? lines.join("\n") : undefined;
  }
}

/** The IR builder's context for one file. */
export class Ctx {
  /** Diagnostics collected so far, in the order found. */
  readonly diagnostics: Diagnostic[] = [];

  constructor(
    readonly source: SourceMap,
    readonly docs: DocIndex,
  ) {}

  /** Records an error. */
  error(code: string, message: string, span: Span): void {
    this.diagnostics.push({ severity: "error", code, message, span });
  }

  /** Records a warning. */
  warning(code: string, message: string, span: Span): void {
    this.diagnostics.push({ severity: "warning", code, message, span });
  }

  /** Span of a token. */
  tok(t: IToken): Span {
    return this.source.token(t);
  }

  /** Span of a whole CST node (first to last real token), or `fallback` when recovery left it empty. */
  nodeSpan(n: CstNode | undefined, fallback?: IToken): Span {
    const range = offsetRange(n);
    if (!range) {
      return fallback
        ? this.source.token(fallback)
        : this.source.span(this.source.text.length, this.source.text.length);
    }
    return this.source.span(range.start, range.end);
  }

  /** The source text of a node, exactly as written. */
  text(n: CstNode | undefined): string {
    const range = offsetRange(n);
    return range ? this.source.cut(range.start, range.end) : "";
  }
}

/** The content of a double-quoted string token: quotes removed, `\x` unescaped to `x`. Tolerates a missing closing quote. */
export function unquote(image: string): string {
  const body = image.endsWith('"') && image.length >= 2 ? image.slice(1, -1) : image.slice(1);
  return body.replace(/\\(.)/g, "$1");
}
