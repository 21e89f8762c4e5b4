/**
 * The formatter's view of one parsed file: significant tokens by index, the
 * comments between them (`Trivia`), and the small text helpers every
 * construct printer shares. Layout decisions live in `layout.ts` and the
 * `print-*.ts` files; docs/decisions/1100-formatter-layout.md says why.
 */
import type { CstNode, IToken } from "chevrotain";
import { allTokens } from "../to-ir/cst.js";
import { splitTrailing, Trivia, type Comment, type Run } from "./trivia.js";

/** The widest line the formatter aims for when it decides whether a block may stay on one line. */
export const PRINT_WIDTH = 120;

/** Indentation of one block level. */
export const INDENT = "  ";

/** Extra indentation of a line a comment forced open inside a construct. */
export const CONTINUATION = "    ";

/** Text of comments placed one after another on a line: a line comment ends the line, so `join` puts it last. */
export function commentText(cs: readonly Comment[]): string {
  return cs.map((c) => c.text).join(" ");
}

/** Shared state of one formatting run. */
export class Printer {
  readonly trivia: Trivia;
  private readonly index = new Map<number, number>();

  constructor(
    readonly text: string,
    readonly tokens: readonly IToken[],
  ) {
    this.trivia = new Trivia(text, tokens);
    tokens.forEach((t, i) => this.index.set(t.startOffset, i));
  }

  /** Index of a token of this file. */
  at(t: IToken): number {
    const i = this.index.get(t.startOffset);
    if (i === undefined) throw new Error(`token "${t.image}" is not in the file`);
    return i;
  }

  /** Tokens of a CST node, in source order. */
  tokensOf(n: CstNode): IToken[] {
    return allTokens(n);
  }

  /** Index of the first token of a node. */
  first(n: CstNode): number {
    const ts = allTokens(n);
    if (ts.length === 0) throw new Error(`empty ${n.name} node`);
    return this.at(ts[0]!);
  }

  /** Index of the last token of a node. */
  last(n: CstNode): number {
    const ts = allTokens(n);
    if (ts.length === 0) throw new Error(`empty ${n.name} node`);
    return this.at(ts[ts.length - 1]!);
  }

  /** Line (1-based) of a token. */
  line(i: number): number {
    return this.tokens[i]!.startLine ?? 0;
  }

  /**
   * The comments between tokens `a` and `b` rendered for a place inside a
   * construct, as a prefix of what follows `b`'s side: "" when there are
   * none, `"/* c *\/ "` for block comments, and a line comment followed by a
   * line break and `cont` (the indentation the construct continues at).
   */
  inline(a: number, b: number, cont: string): string {
    return inlineRun(this.trivia.between(a, b), cont);
  }

  /**
   * Joins two pieces of one construct, `left` ending with token `a` and
   * `right` starting with token `b`: `sep` when no comment lies between, else
   * a space and the comments.
   */
  glue(left: string, a: number, b: number, sep: string, right: string, cont: string): string {
    const comments = this.inline(a, b, cont);
    return comments === "" ? left + sep + right : `${left} ${comments}${right}`;
  }

  /** The source text from token `a` to token `b`, exactly as written (comments inside included and placed). */
  verbatim(a: number, b: number): string {
    this.trivia.placeVerbatim(a, b);
    const last = this.tokens[b]!;
    return this.text.slice(this.tokens[a]!.startOffset, last.startOffset + last.image.length);
  }

  /** The comments after token `a` up to token `b`, split into those trailing `a` and the rest. */
  split(a: number, b: number): { trailing: Comment[]; rest: Run } {
    return splitTrailing(this.trivia.between(a, b));
  }
}

/** Renders a run of comments inline (see `Printer.inline`). */
export function inlineRun(run: Run, cont: string): string {
  let out = "";
  for (const { comment } of run.items)
    out += comment.kind === "block" ? `${comment.text} ` : `${comment.text}\n${cont}`;
  return out;
}
