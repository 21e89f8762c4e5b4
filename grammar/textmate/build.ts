/**
 * Builds the TextMate grammar of the `.resource` language
 * (`grammar/textmate/resource.tmLanguage.json`), used by the VS Code
 * extension (editors/vscode), by shiki for the docs, and by any editor that
 * reads TextMate grammars. The type, attribute and setting names come from
 * the parser's own tables, so the colours follow the language. Run
 * `npx tsx grammar/textmate/build.ts` after changing the language and
 * commit the JSON; test/textmate/grammar.test.ts fails while it is stale.
 *
 * Scope names follow the TextMate conventions themes know
 * (docs/decisions/1101-highlighting-scopes.md).
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  ACTION_ATTRIBUTES,
  BLOCK_ATTRIBUTES,
  BUILTIN_TYPES,
  CLAIM_ATTRIBUTES,
  COLUMN_ATTRIBUTES,
  JWT_ALGORITHMS,
  OP_NAMES,
} from "../index.js";

/** A TextMate rule, as the JSON grammar format spells it. */
export interface TmRule {
  name?: string;
  match?: string;
  begin?: string;
  end?: string;
  captures?: Record<string, TmRule>;
  beginCaptures?: Record<string, TmRule>;
  endCaptures?: Record<string, TmRule>;
  patterns?: TmRule[];
  include?: string;
  contentName?: string;
}

/** The whole grammar file. */
export interface TmGrammar {
  $schema: string;
  name: string;
  scopeName: string;
  fileTypes: string[];
  patterns: TmRule[];
  repository: Record<string, TmRule>;
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";
/** Words that continue a multi-word type on the same line (grammar/parser.ts, TYPE_CONTINUATIONS). */
const TYPE_WORDS = `${NAME}(?:[ \\t]+(?:precision|varying|with|without|time|zone)\\b)*`;

function words(ws: Iterable<string>): string {
  // Longest first, so `timestamptz` wins over `timestamp` and `time with time zone` over `time`.
  return [...new Set(ws)]
    .sort((a, b) => b.length - a.length || (a < b ? -1 : 1))
    .map((w) => w.replace(/ /g, "[ \\t]+"))
    .join("|");
}

const cap = (name: string): TmRule => ({ name });

/** The grammar, as an object ready for `JSON.stringify`. */
export function resourceGrammar(): TmGrammar {
  const builtin = words(BUILTIN_TYPES.keys());
  return {
    $schema: "https://raw.githubusercontent.com/martinring/tmlanguage/master/tmlanguage.json",
    name: "Resource",
    scopeName: "source.resource",
    fileTypes: ["resource"],
    patterns: [
      { include: "#comments" },
      { include: "#api" },
      { include: "#auth" },
      { include: "#generate" },
      { include: "#enum" },
      { include: "#domain" },
      { include: "#table" },
      { include: "#values" },
    ],
    repository: {
      comments: {
        patterns: [
          { name: "comment.line.documentation.resource", match: "///.*$" },
          { name: "comment.line.double-slash.resource", match: "//.*$" },
          {
            name: "comment.block.resource",
            begin: "/\\*",
            end: "\\*/",
            beginCaptures: { "0": cap("punctuation.definition.comment.begin.resource") },
            endCaptures: { "0": cap("punctuation.definition.comment.end.resource") },
          },
        ],
      },
      api: {
        begin: "\\b(api)\\s*(\\{)",
        beginCaptures: {
          "1": cap("keyword.declaration.api.resource"),
          "2": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [{ include: "#comments" }, { include: "#security-scheme" }, { include: "#settings" }],
      },
      "security-scheme": {
        begin: `\\b(security)\\s+(${NAME})\\s*(\\{)`,
        beginCaptures: {
          "1": cap("keyword.other.security.resource"),
          "2": cap("entity.name.type.security-scheme.resource"),
          "3": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [{ include: "#comments" }, { include: "#settings" }],
      },
      // docs/decisions/1367-access-rules.md: `auth { settings  claim name type  jwt { … }  database { … } }`.
      auth: {
        begin: "\\b(auth)\\s*(\\{)",
        beginCaptures: {
          "1": cap("keyword.declaration.auth.resource"),
          "2": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          { include: "#jwt" },
          { include: "#database" },
          { include: "#claim" },
          { include: "#settings" },
        ],
      },
      jwt: {
        begin: "\\b(jwt)\\s*(\\{)",
        beginCaptures: {
          "1": cap("keyword.other.jwt.resource"),
          "2": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [{ include: "#comments" }, { include: "#settings" }],
      },
      // docs/decisions/1368-database-row-level-security.md: `database { role = principal  anonymous = "anon" … }`.
      database: {
        begin: "\\b(database)\\s*(\\{)",
        beginCaptures: {
          "1": cap("keyword.other.database.resource"),
          "2": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          // `role = principal`: the one word the block gives a meaning; the names it takes are strings.
          { name: "constant.language.option.resource", match: "\\bprincipal\\b" },
          { include: "#settings" },
        ],
      },
      claim: {
        match: `\\b(claim)[ \\t]+(${NAME})[ \\t]+(${TYPE_WORDS})`,
        captures: {
          "1": cap("keyword.other.claim.resource"),
          "2": cap("variable.other.property.claim.resource"),
          "3": { patterns: [{ include: "#type-name" }] },
        },
      },
      // `access role, … { ops = […]  rows …  check …  stamp col = claim.x  hide […] }` inside a table.
      access: {
        // From the line start, as a column is matched: the earlier match would win otherwise.
        begin: `(?:^[ \\t]*)?\\b(access)[ \\t]+(${NAME}(?:[ \\t]*,[ \\t]*${NAME})*)[ \\t]*(\\{)`,
        beginCaptures: {
          "1": cap("keyword.other.access.resource"),
          "2": {
            patterns: [
              { name: "entity.name.type.role.resource", match: NAME },
              { name: "punctuation.separator.comma.resource", match: "," },
            ],
          },
          "3": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          {
            match: "\\b(ops)\\s*(=)(?!=)",
            captures: {
              "1": cap("variable.other.property.setting.resource"),
              "2": cap("keyword.operator.assignment.resource"),
            },
          },
          { include: "#rule" },
          { include: "#values" },
        ],
      },
      rule: {
        patterns: [
          {
            match: `\\b(stamp)[ \\t]+(${NAME})[ \\t]*(=)`,
            captures: {
              "1": cap("keyword.other.statement.resource"),
              "2": cap("variable.other.property.column.resource"),
              "3": cap("keyword.operator.assignment.resource"),
            },
          },
          {
            match: "\\b(rows|check|hide)\\b(?![ \\t]*=(?!=))",
            captures: { "1": cap("keyword.other.statement.resource") },
          },
          {
            match: `\\b(claim)(\\.)(${NAME})`,
            captures: {
              "1": cap("variable.language.claim.resource"),
              "2": cap("punctuation.accessor.resource"),
              "3": cap("variable.other.property.claim.resource"),
            },
          },
          {
            match: `\\b(${NAME})(\\.)(${NAME})`,
            captures: {
              "1": cap("variable.other.object.relation.resource"),
              "2": cap("punctuation.accessor.resource"),
              "3": cap("variable.other.property.column.resource"),
            },
          },
          { name: "keyword.operator.logical.resource", match: "\\b(?:and|or|not)\\b" },
          { name: "keyword.operator.word.resource", match: "\\b(?:in|is|has)\\b" },
          {
            match: `\\b(${NAME})(?=[ \\t]*(?:!=|<=|>=|<|>|=|(?:in|is|not|has)\\b))`,
            captures: { "1": cap("variable.other.property.column.resource") },
          },
          { name: "keyword.operator.comparison.resource", match: "!=|<=|>=|<|>|=" },
        ],
      },
      generate: {
        begin: "\\b(generate)\\s*(\\{)",
        beginCaptures: {
          "1": cap("keyword.declaration.generate.resource"),
          "2": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [{ include: "#comments" }, { include: "#settings" }],
      },
      enum: {
        begin: `\\b(enum)\\s+(${NAME})\\s*(\\{)`,
        beginCaptures: {
          "1": cap("keyword.declaration.enum.resource"),
          "2": cap("entity.name.type.enum.resource"),
          "3": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          { include: "#string" },
          { name: "variable.other.enummember.resource", match: NAME },
          { include: "#punctuation" },
        ],
      },
      domain: {
        match: `\\b(domain)[ \\t]+(${NAME})[ \\t]+(${TYPE_WORDS})`,
        captures: {
          "1": cap("keyword.declaration.domain.resource"),
          "2": cap("entity.name.type.domain.resource"),
          "3": { patterns: [{ include: "#type-name" }] },
        },
      },
      table: {
        begin: `\\b(table)\\s+(${NAME})\\s*(\\{)`,
        beginCaptures: {
          "1": cap("keyword.declaration.table.resource"),
          "2": cap("entity.name.type.table.resource"),
          "3": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          { include: "#resource" },
          { include: "#access" },
          { include: "#column" },
          { include: "#values" },
        ],
      },
      resource: {
        begin: `\\b(resource)\\s+("[^"\\n]*")\\s*(\\{)`,
        beginCaptures: {
          "1": cap("keyword.other.resource.resource"),
          "2": cap("string.quoted.double.path.resource"),
          "3": cap("punctuation.section.block.begin.resource"),
        },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [
          { include: "#comments" },
          { include: "#action" },
          { include: "#field-block" },
          { include: "#settings" },
        ],
      },
      // docs/decisions/1334-declared-actions.md: `action name @collection { fields } returns { fields }`.
      action: {
        patterns: [
          {
            match: `\\b(action)[ \\t]+(${NAME})`,
            captures: {
              "1": cap("keyword.other.action.resource"),
              "2": cap("entity.name.function.action.resource"),
            },
          },
          { match: "\\b(returns)(?=\\s*\\{)", captures: { "1": cap("keyword.other.returns.resource") } },
          { include: "#attribute" },
        ],
      },
      "field-block": {
        begin: "\\{",
        beginCaptures: { "0": cap("punctuation.section.block.begin.resource") },
        end: "\\}",
        endCaptures: { "0": cap("punctuation.section.block.end.resource") },
        patterns: [{ include: "#comments" }, { include: "#column" }, { include: "#values" }],
      },
      column: {
        match: `^[ \\t]*(${NAME})[ \\t]+(${TYPE_WORDS})`,
        captures: {
          "1": cap("variable.other.property.column.resource"),
          "2": { patterns: [{ include: "#type-name" }] },
        },
      },
      "type-name": {
        patterns: [
          { name: "support.type.builtin.resource", match: `\\b(?:${builtin})\\b` },
          { name: "entity.name.type.resource", match: `\\b${NAME}(?:[ \\t]+${NAME})*` },
        ],
      },
      settings: {
        patterns: [
          {
            match: `\\b(${NAME})\\s*(=)`,
            captures: {
              "1": cap("variable.other.property.setting.resource"),
              "2": cap("keyword.operator.assignment.resource"),
            },
          },
          { include: "#values" },
        ],
      },
      values: {
        patterns: [
          { include: "#comments" },
          { include: "#attribute" },
          { include: "#string" },
          { include: "#sql-string" },
          { include: "#number" },
          {
            match: `(-)(${NAME})\\b`,
            captures: { "1": cap("keyword.operator.descending.resource"), "2": cap("variable.other.resource") },
          },
          {
            match: `\\b(${NAME})\\s*(:)(?!:)`,
            captures: { "1": cap("variable.parameter.resource"), "2": cap("punctuation.separator.key-value.resource") },
          },
          { name: "constant.language.resource", match: "\\b(?:true|false|null)\\b" },
          {
            name: "constant.language.option.resource",
            match: `\\b(?:${words(["expandable", "identity", "first", "last", "all", ...Object.keys(OP_NAMES), ...JWT_ALGORITHMS])})\\b`,
          },
          { match: `\\b(${NAME})(?=\\()`, captures: { "1": cap("entity.name.function.resource") } },
          {
            match: `(::)[ \\t]*(${NAME})`,
            captures: { "1": cap("keyword.operator.cast.resource"), "2": cap("support.type.builtin.resource") },
          },
          { name: "keyword.operator.optional.resource", match: "\\?" },
          { name: "variable.other.resource", match: NAME },
          { include: "#punctuation" },
        ],
      },
      attribute: {
        patterns: [
          {
            name: "entity.name.tag.table-attribute.resource",
            match: `@@(?:${words(BLOCK_ATTRIBUTES)})\\b`,
          },
          {
            name: "entity.name.tag.attribute.resource",
            match: `@(?:${words([...COLUMN_ATTRIBUTES, ...ACTION_ATTRIBUTES, ...CLAIM_ATTRIBUTES])})\\b`,
          },
          { name: "invalid.illegal.unknown-attribute.resource", match: `@@?${NAME}` },
        ],
      },
      string: {
        name: "string.quoted.double.resource",
        begin: '"',
        end: '"|$',
        beginCaptures: { "0": cap("punctuation.definition.string.begin.resource") },
        endCaptures: { "0": cap("punctuation.definition.string.end.resource") },
        patterns: [{ name: "constant.character.escape.resource", match: "\\\\." }],
      },
      "sql-string": {
        name: "string.quoted.single.sql.resource",
        match: "'(?:[^'\\n]|'')*'",
      },
      number: { name: "constant.numeric.resource", match: "(?<![\\w.])-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?\\b" },
      punctuation: {
        patterns: [
          { name: "punctuation.separator.comma.resource", match: "," },
          { name: "punctuation.section.brackets.resource", match: "[\\[\\]]" },
          { name: "punctuation.section.parens.resource", match: "[()]" },
          { name: "punctuation.section.block.resource", match: "[{}]" },
        ],
      },
    },
  };
}

/** The grammar as the committed file holds it (two-space JSON, final newline). */
export function resourceGrammarJson(): string {
  return `${JSON.stringify(resourceGrammar(), null, 2)}\n`;
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const target = fileURLToPath(new URL("./resource.tmLanguage.json", import.meta.url));
  writeFileSync(target, resourceGrammarJson());
  console.log(`wrote ${target}`);
}
