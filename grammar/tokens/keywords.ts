/**
 * Names and keywords of the `.resource` language (docs/language.md, Lexical
 * structure).
 *
 * Hard keywords (`api`, `generate`, `enum`, `domain`, `table`) start a
 * top-level declaration. Soft keywords (`resource`, `security`, `action`, `returns`) only mean
 * something in one position inside a block; they belong to the `Identifier`
 * category so that a setting may still be called `security` and a column
 * `resource`. Hard keywords are still accepted as names where the grammar is
 * unambiguous (the parser's `anyName` rule), because real schemas have
 * columns called `domain` or tables called `table`.
 */
import type { TokenType } from "chevrotain";
import { createToken } from "../chevrotain.js";

/** A bare name: table, column, type, setting, relation, enum value. ASCII letters, digits and `_`, not starting with a digit. */
export const Identifier: TokenType = createToken({
  name: "Identifier",
  label: "a name",
  pattern: /[A-Za-z_][A-Za-z0-9_]*/,
});

function hardKeyword(word: string): TokenType {
  return createToken({
    name: word[0]!.toUpperCase() + word.slice(1),
    label: `"${word}"`,
    pattern: new RegExp(word),
    longer_alt: Identifier,
  });
}

function softKeyword(word: string): TokenType {
  return createToken({
    name: word[0]!.toUpperCase() + word.slice(1),
    label: `"${word}"`,
    pattern: new RegExp(word),
    longer_alt: Identifier,
    categories: [Identifier],
  });
}

/** `api { … }`: OpenAPI title, version and security schemes. */
export const Api: TokenType = hardKeyword("api");
/** `generate { … }`: generator configuration. */
export const Generate: TokenType = hardKeyword("generate");
/** `enum name { … }`. */
export const Enum: TokenType = hardKeyword("enum");
/** `domain name type @check(…)`. */
export const Domain: TokenType = hardKeyword("domain");
/** `table name { … }`. */
export const Table: TokenType = hardKeyword("table");
/** `resource "/path" { … }` inside a table. */
export const Resource: TokenType = softKeyword("resource");
/** `security name { … }` inside the `api` block. */
export const Security: TokenType = softKeyword("security");
/** `action name { fields }` inside a resource block (docs/decisions/1334-declared-actions.md). */
export const Action: TokenType = softKeyword("action");
/** `returns { fields }` after an action's input block. */
export const Returns: TokenType = softKeyword("returns");

/** Keywords that start a top-level declaration; the parser uses them to find where a broken block ends. */
export const declarationKeywords: readonly TokenType[] = [Api, Generate, Enum, Domain, Table];

/** Every keyword, in lexer order (before `Identifier`). */
export const keywordTokens: readonly TokenType[] = [
  Api,
  Generate,
  Enum,
  Domain,
  Table,
  Resource,
  Security,
  Action,
  Returns,
];
