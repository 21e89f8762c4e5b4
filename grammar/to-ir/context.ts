/**
 * State shared while one file is turned into IR: where diagnostics go, how
 * offsets become spans, and which doc comments belong to which declaration.
 */
import type { CstNode, IToken } from "chevrotain";
import type { Diagnostic, Span } from "../../compiler/ir.js";
import type { SourceMap } from "../span.js";
import { allTokens } from "./cst.js";

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
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid]!.startOffset < start) lo = mid + 1;
      else hi = mid;
    }
    const prevEnd = lo > 0 ? this.tokens[lo - 1]!.startOffset + this.tokens[lo - 1]!.image.length : -1;
    const lines = this.docs
      .filter((d) => d.startOffset >= prevEnd && d.startOffset < start)
      .map((d) => d.image.slice(3).replace(/^ /, "").trimEnd());
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
    const ts = allTokens(n);
    if (ts.length === 0) {
      return fallback
        ? this.source.token(fallback)
        : this.source.span(this.source.text.length, this.source.text.length);
    }
    return this.source.between(ts[0]!, ts[ts.length - 1]!);
  }

  /** The source text of a node, exactly as written. */
  text(n: CstNode | undefined): string {
    const ts = allTokens(n);
    if (ts.length === 0) return "";
    const last = ts[ts.length - 1]!;
    return this.source.text.slice(ts[0]!.startOffset, last.startOffset + last.image.length);
  }
}

/** The content of a double-quoted string token: quotes removed, `\x` unescaped to `x`. Tolerates a missing closing quote. */
export function unquote(image: string): string {
  const body = image.endsWith('"') && image.length >= 2 ? image.slice(1, -1) : image.slice(1);
  return body.replace(/\\(.)/g, "$1");
}
