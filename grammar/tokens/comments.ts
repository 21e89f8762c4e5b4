/**
 * Whitespace and comments (docs/language.md, Comments and doc comments).
 *
 * Doc comments go to the `docs` group so the IR builder can attach them to
 * the declaration that follows; an unterminated block comment goes to the
 * `errors` group so it becomes one precise diagnostic instead of a cascade.
 */
import type { TokenType } from "chevrotain";
import { createToken, Lexer } from "../chevrotain.js";

/** Spaces, tabs and line breaks; never significant (newlines included: the grammar needs no separators). */
export const WhiteSpace: TokenType = createToken({
  name: "WhiteSpace",
  pattern: /[ \t\r\n\f\uFEFF]+/,
  group: Lexer.SKIPPED,
  line_breaks: true,
});

/** `/// text`: documentation for the next api, enum, domain, table, column or resource. */
export const DocComment: TokenType = createToken({
  name: "DocComment",
  pattern: /\/\/\/[^\n\r]*/,
  group: "docs",
});

/** `// text`: ignored. */
export const LineComment: TokenType = createToken({
  name: "LineComment",
  pattern: /\/\/[^\n\r]*/,
  group: Lexer.SKIPPED,
});

/** `/* text *\/`: ignored; may span lines. */
export const BlockComment: TokenType = createToken({
  name: "BlockComment",
  pattern: /\/\*[\s\S]*?\*\//,
  group: Lexer.SKIPPED,
  line_breaks: true,
});

/** `/*` with no closing `*\/`: swallows the rest of the file and is reported as `unterminated-comment`. */
export const UnterminatedBlockComment: TokenType = createToken({
  name: "UnterminatedBlockComment",
  pattern: /\/\*[\s\S]*/,
  group: "errors",
  line_breaks: true,
});

/** Comment and whitespace tokens in lexer order (doc before line comment, terminated before unterminated). */
export const triviaTokens: readonly TokenType[] = [
  WhiteSpace,
  DocComment,
  LineComment,
  BlockComment,
  UnterminatedBlockComment,
];
