/** Punctuation tokens (docs/language.md, Lexical structure). */
import type { TokenType } from "chevrotain";
import { createToken } from "../chevrotain.js";

function punct(name: string, text: string): TokenType {
  return createToken({ name, label: `"${text}"`, pattern: text });
}

/** `{` opens a block. */
export const LCurly: TokenType = punct("LCurly", "{");
/** `}` closes a block. */
export const RCurly: TokenType = punct("RCurly", "}");
/** `(` opens attribute arguments, type modifiers or a call. */
export const LParen: TokenType = punct("LParen", "(");
/** `)` closes them. */
export const RParen: TokenType = punct("RParen", ")");
/** `[` opens a list or an array type suffix. */
export const LBracket: TokenType = punct("LBracket", "[");
/** `]` closes it. */
export const RBracket: TokenType = punct("RBracket", "]");
/** `,` separates items; optional everywhere. */
export const Comma: TokenType = punct("Comma", ",");
/** `::` a SQL cast inside a call, as in `nextval('s'::regclass)`. */
export const DoubleColon: TokenType = punct("DoubleColon", "::");
/** `:` introduces a named argument (`nulls: last`) or a security scope list. */
export const Colon: TokenType = punct("Colon", ":");
/** `=` assigns a setting. */
export const Equals: TokenType = punct("Equals", "=");
/** `?` after a type: the column is nullable. */
export const Question: TokenType = punct("Question", "?");
/** `-` before a sort term (descending) or a number (negative). */
export const Minus: TokenType = punct("Minus", "-");
/** `.` in `claim.org` and `relation.column` inside a rule (docs/decisions/1367-access-rules.md). */
export const Dot: TokenType = punct("Dot", ".");
/** `!=` in a rule: not equal. */
export const NotEquals: TokenType = punct("NotEquals", "!=");
/** `<=` in a rule. */
export const LessEquals: TokenType = punct("LessEquals", "<=");
/** `<` in a rule. */
export const Less: TokenType = punct("Less", "<");
/** `>=` in a rule. */
export const GreaterEquals: TokenType = punct("GreaterEquals", ">=");
/** `>` in a rule. */
export const Greater: TokenType = punct("Greater", ">");

/** Punctuation in lexer order (`::` before `:`, `<=` before `<`, `>=` before `>`). */
export const punctuationTokens: readonly TokenType[] = [
  LCurly,
  RCurly,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Comma,
  DoubleColon,
  Colon,
  Equals,
  Question,
  Minus,
  Dot,
  NotEquals,
  LessEquals,
  Less,
  GreaterEquals,
  Greater,
];
