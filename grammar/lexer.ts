/**
 * The lexer of the `.resource` language: one Chevrotain `Lexer` built once
 * from the token families in `tokens/`, and `lex()` which turns its output
 * into tokens plus diagnostics (it never throws).
 */
import type { ILexingError, IToken, TokenType } from "chevrotain";
import { Lexer } from "./chevrotain.js";
import type { Diagnostic } from "../language/ir.js";
import { triviaTokens, UnterminatedBlockComment } from "./tokens/comments.js";
import { literalTokens, UnterminatedString } from "./tokens/literals.js";
import { punctuationTokens } from "./tokens/punctuation.js";
import { Identifier, keywordTokens } from "./tokens/keywords.js";
import { holdsWide, oneByte } from "./one-byte.js";
import { SourceMap } from "./span.js";

/** Every token type, in the order the lexer tries them. The parser is built from the same list. */
export const allTokens: readonly TokenType[] = [
  ...triviaTokens,
  ...literalTokens,
  ...punctuationTokens,
  ...keywordTokens,
  Identifier,
];

/** The options of the shared lexer; `skipValidations` as for the parser (test/grammar/grammar-validity.test.ts). */
export const LEXER_CONFIG = { positionTracking: "full", ensureOptimizations: false, skipValidations: true } as const;

const lexer = new Lexer([...allTokens], LEXER_CONFIG);

/** Joins lexing errors separated only by spaces on one line, so `#! $$` is one diagnostic, not two. */
function mergeRuns(errors: ILexingError[], text: string): { offset: number; length: number }[] {
  const out: { offset: number; length: number }[] = [];
  for (const e of errors) {
    const last = out[out.length - 1];
    if (last && /^[ \t]*$/.test(text.slice(last.offset + last.length, e.offset))) {
      last.length = e.offset + e.length - last.offset;
    } else out.push({ offset: e.offset, length: e.length });
  }
  return out;
}

/** What `lex` returns: significant tokens, doc comments (in source order) and lexical diagnostics. */
export interface LexResult {
  tokens: IToken[];
  docComments: IToken[];
  diagnostics: Diagnostic[];
}

/** Gives each token a one-byte copy of its text when `text` holds a wider character (decision 1354). */
function narrowTokens(text: string, tokens: readonly IToken[]): void {
  if (!holdsWide(text)) return;
  for (const t of tokens) t.image = oneByte(t.image);
}

/**
 * Splits `text` into tokens. Unknown characters, unterminated strings and
 * unterminated block comments become diagnostics (codes
 * `unexpected-character`, `unterminated-string`, `unterminated-comment`);
 * the tokens around them are kept so parsing can go on. Token texts are
 * one-byte strings wherever their characters allow (decision 1354).
 */
export function lex(text: string, source: SourceMap): LexResult {
  const result = lexer.tokenize(text);
  const diagnostics: Diagnostic[] = [];
  for (const e of mergeRuns(result.errors, text)) {
    const bad = text.slice(e.offset, e.offset + e.length);
    const shown = bad.length > 20 ? `${bad.slice(0, 20)}…` : bad;
    diagnostics.push({
      severity: "error",
      code: "unexpected-character",
      message: bad.length === 1 ? `Unexpected character "${shown}"` : `Unexpected characters "${shown}"`,
      span: source.span(e.offset, e.offset + e.length),
    });
  }
  for (const t of result.tokens) {
    if (t.tokenType === UnterminatedString) {
      diagnostics.push({
        severity: "error",
        code: "unterminated-string",
        message: `Unterminated string: add a closing " before the end of the line`,
        span: source.span(t.startOffset, t.startOffset + t.image.length),
      });
    }
  }
  for (const t of result.groups["errors"] ?? []) {
    if (t.tokenType === UnterminatedBlockComment) {
      diagnostics.push({
        severity: "error",
        code: "unterminated-comment",
        message: `Unterminated block comment: "/*" is never closed by "*/"`,
        span: source.span(t.startOffset, t.startOffset + 2),
      });
    }
  }
  diagnostics.sort((a, b) => a.span.offset - b.span.offset);
  const docComments = result.groups["docs"] ?? [];
  narrowTokens(text, result.tokens);
  narrowTokens(text, docComments);
  return { tokens: result.tokens, docComments, diagnostics };
}

/**
 * Lexes `text.slice(from, to)` alone and places its tokens and doc comments
 * where they stand in `text`: offsets moved by `from`, lines by the lines
 * before it, columns on `from`'s own line by its column. `from` must start a
 * token or a line outside every comment and string (a declaration keyword,
 * say). Returns, beside them, the codes of the lexical problems met in the
 * range (`unexpected-character`, `unterminated-string`, …), whose spans
 * would be the range's own: the language server uses this to re-lex the
 * declaration under the cursor only (bench/COMPILER.md).
 */
export function lexRange(
  text: string,
  from: number,
  to: number,
  file: string,
): { tokens: IToken[]; docComments: IToken[]; problems: string[] } {
  const part = text.slice(from, to);
  const lexed = lex(part, new SourceMap(file, part));
  // Lines end as the lexer ends them: \r\n, a lone \r, or \n (a lone \r counted as nothing put every later line one short).
  const terminator = /\r\n?|\n/g;
  let line = 0;
  let lineStart = 0;
  for (let m = terminator.exec(text); m !== null && m.index < from; m = terminator.exec(text)) {
    line++;
    lineStart = m.index + m[0].length;
  }
  const column = from - lineStart;
  for (const t of [...lexed.tokens, ...lexed.docComments]) {
    if (t.startLine === 1) t.startColumn = (t.startColumn ?? 1) + column;
    if (t.endLine === 1) t.endColumn = (t.endColumn ?? 1) + column;
    t.endOffset = (t.endOffset ?? t.startOffset) + from;
    t.startOffset += from;
    t.startLine = (t.startLine ?? 1) + line;
    t.endLine = (t.endLine ?? 1) + line;
  }
  return { tokens: lexed.tokens, docComments: lexed.docComments, problems: lexed.diagnostics.map((d) => d.code) };
}
