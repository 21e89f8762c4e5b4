/**
 * Literal tokens: strings, numbers and attribute names (docs/language.md,
 * Lexical structure).
 */
import type { TokenType } from "chevrotain";
import { createToken } from "../chevrotain.js";

/**
 * A double-quoted string on one line. `\"` and `\\` escape; the IR builder
 * unescapes. SQL text inside (`@check("VALUE >= 1901")`) keeps its own
 * single quotes untouched.
 */
export const StringLiteral: TokenType = createToken({
  name: "StringLiteral",
  label: "a string",
  pattern: /"(?:[^"\\\n\r]|\\.)*"/,
});

/**
 * A double-quoted string whose closing quote is missing before the end of
 * the line. It is a `StringLiteral` for the parser, so the rest of the file
 * still parses, and the front end reports `unterminated-string` once.
 */
export const UnterminatedString: TokenType = createToken({
  name: "UnterminatedString",
  label: "a string",
  pattern: /"(?:[^"\\\n\r]|\\.)*/,
  categories: [StringLiteral],
});

/** A single-quoted SQL string, only meaningful inside a SQL call such as `@default(nextval('s'))`; `''` escapes a quote. */
export const SqlString: TokenType = createToken({
  name: "SqlString",
  label: "a SQL string",
  pattern: /'(?:[^'\n\r]|'')*'/,
});

/** An unsigned decimal number; a leading minus is a separate token so `-id` in a sort list and `-1` share it. */
export const NumberLiteral: TokenType = createToken({
  name: "NumberLiteral",
  label: "a number",
  pattern: /\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/,
});

/** `@@name`: a table (block) attribute. One token, so its span is exactly the attribute's name. */
export const BlockAttributeName: TokenType = createToken({
  name: "BlockAttributeName",
  label: "a table attribute (@@…)",
  pattern: /@@[A-Za-z_][A-Za-z0-9_]*/,
});

/** `@name`: a column or domain attribute. Attributes always start with `@`, which is what lets a column span several lines. */
export const AttributeName: TokenType = createToken({
  name: "AttributeName",
  label: "an attribute (@…)",
  pattern: /@[A-Za-z_][A-Za-z0-9_]*/,
});

/** Literal tokens in lexer order (block attributes before attributes, terminated strings before unterminated ones). */
export const literalTokens: readonly TokenType[] = [
  StringLiteral,
  UnterminatedString,
  SqlString,
  NumberLiteral,
  BlockAttributeName,
  AttributeName,
];
