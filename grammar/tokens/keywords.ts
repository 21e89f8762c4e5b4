/**
 * Names and keywords of the `.resource` language (docs/language.md, Lexical
 * structure).
 *
 * Hard keywords (`api`, `auth`, `generate`, `enum`, `domain`, `table`) start a
 * top-level declaration. Soft keywords (`resource`, `security`, `action`, `returns`, and the
 * words of `auth` and `access` blocks: `jwt`, `database`, `claim`, `access`, `rows`, `check`, `stamp`, `hide`,
 * `and`, `or`, `not`, `in`, `is`, `has`) only mean
 * something in one position inside a block; they belong to the `Identifier`
 * category so that a setting may still be called `security` and a column
 * `resource`, `check` or `hide`. Hard keywords are still accepted as names where the grammar is
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
/** `auth { … }`: how callers are authenticated, their roles and claims (docs/decisions/1367-access-rules.md). */
export const Auth: TokenType = hardKeyword("auth");
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

/** `jwt { … }` inside `auth`: how bearer tokens are verified (docs/decisions/1367-access-rules.md). */
export const Jwt: TokenType = softKeyword("jwt");
/**
 * `database { … }` inside `auth`: the database role and claims each request acts with
 * (docs/decisions/1368-database-row-level-security.md).
 */
export const Database: TokenType = softKeyword("database");
/** `claim name type` inside `auth`: a claim the access rules may name. */
export const Claim: TokenType = softKeyword("claim");
/** `access role, … { … }` inside a table: what those roles may do (docs/decisions/1367-access-rules.md). */
export const Access: TokenType = softKeyword("access");
/** `rows [(op, …)] expr` inside `access`: a row rule. */
export const Rows: TokenType = softKeyword("rows");
/** `check expr` inside `access`: the rule a written row must satisfy. */
export const Check: TokenType = softKeyword("check");
/** `stamp column = claim.name` inside `access`: a column set from a claim on create. */
export const Stamp: TokenType = softKeyword("stamp");
/** `hide [a, b]` inside `access`: columns hidden from those roles. */
export const Hide: TokenType = softKeyword("hide");
/** `a and b` in a rule expression. */
export const And: TokenType = softKeyword("and");
/** `a or b` in a rule expression. */
export const Or: TokenType = softKeyword("or");
/** `not a`, `not in`, `is not null` in a rule expression. */
export const Not: TokenType = softKeyword("not");
/** `column in [..]`, `column in claim.x` in a rule expression. */
export const In: TokenType = softKeyword("in");
/** `column is [not] null` in a rule expression. */
export const Is: TokenType = softKeyword("is");
/** `column has value` (an array column contains the value) in a rule expression. */
export const Has: TokenType = softKeyword("has");

/** Keywords that start a top-level declaration; the parser uses them to find where a broken block ends. */
export const declarationKeywords: readonly TokenType[] = [Api, Auth, Generate, Enum, Domain, Table];

/** Every keyword, in lexer order (before `Identifier`). */
export const keywordTokens: readonly TokenType[] = [
  Api,
  Auth,
  Generate,
  Enum,
  Domain,
  Table,
  Resource,
  Security,
  Action,
  Returns,
  Jwt,
  Database,
  Claim,
  Access,
  Rows,
  Check,
  Stamp,
  Hide,
  And,
  Or,
  Not,
  In,
  Is,
  Has,
];
