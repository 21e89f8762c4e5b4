/**
 * Lexing a document again after an edit by re-lexing only the lines around
 * it (bench/COMPILER.md: on a 1,000-table file, lexing the whole text at every
 * keystroke took 15 ms and made most of the language server's garbage).
 *
 * The previous version's tokens are reused when it lexed clean (no lexical
 * diagnostic, no parenthesis closed by `closeDanglingParens`). The edit is
 * the span where the two texts differ (common prefix and suffix). Lexing
 * restarts at the last declaration keyword standing at the start of a line
 * before the edit, and the old tokens are taken again from the first such
 * keyword after it: in a clean file no comment, string or argument list is
 * open there, so the lexer and the parenthesis check are in the same state
 * as when they started the text. The re-lexed window reaches past that
 * keyword to the end of its line and must find it again, whole, at its new
 * place; otherwise (or when the window itself has a problem) the whole text
 * is lexed, exactly as `lex` does. Either way the result equals
 * `lex(text)` followed by `closeDanglingParens`
 * (test/grammar/incremental.test.ts compares at every step).
 *
 * The reused tokens are moved in place (offsets, lines): a caller keeps only
 * the newest version's tokens.
 */
import type { IToken } from "chevrotain";
import type { Diagnostic } from "../language/ir.js";
import { lex, lexRange, type LexResult } from "./lexer.js";
import { closeDanglingParens } from "./recover.js";
import { firstAtOrAfter, type SourceMap } from "./span.js";
import { declarationKeywords } from "./tokens/keywords.js";

/** What {@link IncrementalLexer.lex} returns: `lex`'s result and `closeDanglingParens`' over its tokens. */
export interface Relexed {
  lexed: LexResult;
  closed: { tokens: IToken[]; diagnostics: Diagnostic[] };
  /** True when tokens of the previous version were reused (for tests and benchmarks). */
  reused: boolean;
}

/** A version that lexed clean: where the next one starts from. */
interface Clean {
  text: string;
  tokens: IToken[];
  docComments: IToken[];
}

/** True for a token where lexing may restart: a declaration keyword at the start of its line. */
function restartPoint(t: IToken): boolean {
  return t.startColumn === 1 && declarationKeywords.includes(t.tokenType);
}

/** Lexes successive versions of one document; see the module comment. Not shared between documents. */
export class IncrementalLexer {
  private clean: Clean | undefined;

  /** `lex(text, source)` and `closeDanglingParens` over its tokens, re-lexing only around the edit when it can. */
  lex(text: string, source: SourceMap): Relexed {
    const again = this.clean ? relex(this.clean, text, source) : undefined;
    const lexed = again ?? lex(text, source);
    const closed = again ? { tokens: again.tokens, diagnostics: [] } : closeDanglingParens(lexed.tokens, source);
    this.clean =
      lexed.diagnostics.length === 0 && closed.diagnostics.length === 0
        ? { text, tokens: lexed.tokens, docComments: lexed.docComments }
        : undefined;
    return { lexed, closed, reused: again !== undefined };
  }
}

/** The tokens of `text` from `old`'s and a window re-lexed around the edit, or undefined when it cannot be done safely. */
function relex(old: Clean, text: string, source: SourceMap): LexResult | undefined {
  const before = old.text;
  const max = Math.min(before.length, text.length);
  let prefix = 0;
  while (prefix < max && before.charCodeAt(prefix) === text.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  while (
    suffix < max - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === text.charCodeAt(text.length - 1 - suffix)
  )
    suffix++;
  const delta = text.length - before.length;
  const changedUntil = before.length - suffix; // in the old text; the new text differs from `prefix` to `changedUntil + delta`

  // Restart at the last restart point before the edit (or at the start); resume at the first one wholly after it.
  let from = firstAtOrAfter(old.tokens, prefix + 1) - 1;
  while (from >= 0 && !restartPoint(old.tokens[from]!)) from--;
  const start = from >= 0 ? old.tokens[from]!.startOffset : 0;
  let resume = firstAtOrAfter(old.tokens, changedUntil + 1);
  while (resume < old.tokens.length && !restartPoint(old.tokens[resume]!)) resume++;
  const anchor = old.tokens[resume];

  // The window reaches to the end of the anchor's line, so the anchor is lexed whole and what follows it is known.
  const anchorAt = anchor ? anchor.startOffset + delta : text.length;
  const lineEnd = anchor ? text.indexOf("\n", anchorAt) : -1;
  const end = anchor ? (lineEnd < 0 ? text.length : lineEnd + 1) : text.length;
  const window = lexRange(text, start, end, source.file);
  if (window.problems.length > 0) return undefined;
  let cut = firstAtOrAfter(window.tokens, anchorAt);
  if (anchor) {
    const again = window.tokens[cut];
    if (
      again === undefined ||
      again.startOffset !== anchorAt ||
      again.tokenType !== anchor.tokenType ||
      again.image !== anchor.image ||
      again.startColumn !== 1
    )
      return undefined;
  } else cut = window.tokens.length;
  const fresh = window.tokens.slice(0, cut);
  // The parenthesis check restarts clean at `start`; the anchor, a declaration keyword on a new line, closes any left open.
  const check = closeDanglingParens(anchor ? [...fresh, window.tokens[cut]!] : fresh, source);
  if (check.diagnostics.length > 0) return undefined;

  const lines = anchor ? window.tokens[cut]!.startLine! - anchor.startLine! : 0;
  const moved = anchor ? old.tokens.slice(resume) : [];
  const movedDocs = anchor ? old.docComments.slice(firstAtOrAfter(old.docComments, anchor.startOffset)) : [];
  if (delta !== 0 || lines !== 0) {
    for (const t of moved) move(t, delta, lines);
    for (const t of movedDocs) move(t, delta, lines);
  }
  const docsBefore = old.docComments.slice(0, firstAtOrAfter(old.docComments, start));
  const docsFresh = window.docComments.filter((d) => d.startOffset < anchorAt);
  return {
    tokens: old.tokens.slice(0, Math.max(from, 0)).concat(fresh, moved),
    docComments: docsBefore.concat(docsFresh, movedDocs),
    diagnostics: [],
  };
}

/** Moves a token by `offset` characters and `lines` lines; its columns stay (it is on or after a line start). */
function move(t: IToken, offset: number, lines: number): void {
  t.startOffset += offset;
  if (t.endOffset !== undefined) t.endOffset += offset;
  if (t.startLine !== undefined) t.startLine += lines;
  if (t.endLine !== undefined) t.endLine += lines;
}
