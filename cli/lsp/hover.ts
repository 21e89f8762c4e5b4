/**
 * Hover: the reference text of keywords, attributes, settings, types and
 * operations (`reference.ts`, the same text as docs/language.md), and a
 * summary of tables, columns, relations, enums and domains from the schema.
 */
import type { Analysis } from "./analysis.js";
import {
  columnSummary,
  domainSummary,
  enumSummary,
  forwardRelation,
  inverseRelation,
  tableSummary,
  typeSummary,
} from "./describe.js";
import {
  ACCESS_OP_DOCS,
  ACCESS_SETTING_DOCS,
  API_SETTING_DOCS,
  AUTH_SETTING_DOCS,
  COLUMN_ATTRIBUTE_DOCS,
  entryMarkdown,
  GENERATE_SETTING_DOCS,
  JWT_SETTING_DOCS,
  DATABASE_SETTING_DOCS,
  KEYWORDS,
  OP_DOCS,
  RESOURCE_SETTING_DOCS,
  SECURITY_SETTING_DOCS,
  TABLE_ATTRIBUTE_DOCS,
  type RefEntry,
} from "../../grammar/textmate/reference.js";
import { resolve, type Resolved, type SettingBlock } from "./resolve.js";
import { typeText } from "./describe.js";

const SETTINGS: Record<SettingBlock, Readonly<Record<string, RefEntry>>> = {
  resource: RESOURCE_SETTING_DOCS,
  api: API_SETTING_DOCS,
  generate: GENERATE_SETTING_DOCS,
  security: SECURITY_SETTING_DOCS,
  auth: AUTH_SETTING_DOCS,
  jwt: JWT_SETTING_DOCS,
  database: DATABASE_SETTING_DOCS,
  access: ACCESS_SETTING_DOCS,
};

const OPS: Readonly<Record<string, string>> = { ...OP_DOCS, ...ACCESS_OP_DOCS };

function entry(docs: Readonly<Record<string, RefEntry>>, key: string): string | undefined {
  const e = Object.hasOwn(docs, key) ? docs[key] : undefined;
  return e ? entryMarkdown(e) : undefined;
}

function text(a: Analysis, r: Resolved): string | undefined {
  switch (r.kind) {
    case "keyword":
      return entry(KEYWORDS, r.word);
    case "attribute":
      return entry(COLUMN_ATTRIBUTE_DOCS, r.name);
    case "table-attribute":
      return entry(TABLE_ATTRIBUTE_DOCS, r.name);
    case "setting":
      return entry(SETTINGS[r.block], r.key);
    case "type":
      return typeSummary(a.schema, r.name);
    case "op":
      return Object.hasOwn(OPS, r.name) ? `**${r.name}**: ${OPS[r.name]}` : undefined;
    case "table":
      return tableSummary(r.table);
    case "column":
      return columnSummary(r.table, r.column);
    case "relation":
      return forwardRelation(r.table, r.column);
    case "inverse":
      return inverseRelation(r.table, r.column);
    case "enum":
      return enumSummary(r.decl);
    case "domain":
      return domainSummary(r.decl);
    case "claim": {
      if (!r.decl) return "Claim **sub** `text`: the token's subject, always present.";
      const where = r.decl.path !== undefined ? `, at \`${r.decl.path}\` in the payload` : "";
      const need = r.decl.nullable ? "optional (null when the token lacks it)" : "required";
      return `Claim **${r.name}** \`${typeText(r.decl)}\`: ${need}${where}.`;
    }
    case "role":
      return a.schema.auth?.anonymous === r.name
        ? `Role **${r.name}**: the role of a request without a token.`
        : `Role **${r.name}**, declared in the auth block.`;
    case "scheme":
      return `Security scheme **${r.scheme.name}**: HTTP \`${r.scheme.scheme}\`${r.scheme.bearerFormat ? ` (${r.scheme.bearerFormat})` : ""}.`;
  }
}

/** The hover at `offset`: Markdown and the offsets of the word it is about, or undefined. */
export function hover(a: Analysis, offset: number): { markdown: string; start: number; end: number } | undefined {
  const r = resolve(a, offset);
  if (!r) return undefined;
  const markdown = text(a, r.meaning);
  if (markdown === undefined) return undefined;
  return { markdown, start: r.token.startOffset, end: r.token.startOffset + r.token.image.length };
}
