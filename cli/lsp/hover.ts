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
  API_SETTING_DOCS,
  COLUMN_ATTRIBUTE_DOCS,
  entryMarkdown,
  GENERATE_SETTING_DOCS,
  KEYWORDS,
  OP_DOCS,
  RESOURCE_SETTING_DOCS,
  SECURITY_SETTING_DOCS,
  TABLE_ATTRIBUTE_DOCS,
  type RefEntry,
} from "../../grammar/textmate/reference.js";
import { resolve, type Resolved } from "./resolve.js";

const SETTINGS = {
  resource: RESOURCE_SETTING_DOCS,
  api: API_SETTING_DOCS,
  generate: GENERATE_SETTING_DOCS,
  security: SECURITY_SETTING_DOCS,
};

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
      return Object.hasOwn(OP_DOCS, r.name) ? `**${r.name}**: ${OP_DOCS[r.name]}` : undefined;
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
