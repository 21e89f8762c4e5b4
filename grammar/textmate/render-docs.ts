/**
 * Keeps docs/language.md and docs/language.html in step with the language:
 * the reference tables between `<!-- reference:NAME -->` and
 * `<!-- /reference -->` are written from reference.ts (the text the
 * language server's hover shows), and the page is rendered to HTML with
 * every ```resource block coloured by shiki through the TextMate grammar.
 * Run `npx tsx grammar/textmate/render-docs.ts` after changing either and
 * commit both files; test/textmate/docs.test.ts fails while they are stale.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Marked } from "marked";
import { createHighlighter } from "shiki";
import {
  ACCESS_SETTING_DOCS,
  API_SETTING_DOCS,
  AUTH_SETTING_DOCS,
  COLUMN_ATTRIBUTE_DOCS,
  DATABASE_SETTING_DOCS,
  GENERATE_SETTING_DOCS,
  JWT_SETTING_DOCS,
  KEYWORDS,
  RESOURCE_SETTING_DOCS,
  SECURITY_SETTING_DOCS,
  TABLE_ATTRIBUTE_DOCS,
  type RefEntry,
  type SettingEntry,
} from "./reference.js";
import { resourceLanguage } from "./shiki.js";

/** Markdown table cells cannot hold a bare `|`. */
function cell(s: string): string {
  return s.replace(/\|/g, "\\|");
}

function entryRows(docs: Readonly<Record<string, RefEntry>>): string[] {
  return Object.values(docs).map((e) => `| \`${cell(e.syntax)}\` | ${cell(e.summary)} | ${e.spec ?? ""} |`);
}

function settingRows(docs: Readonly<Record<string, SettingEntry>>): string[] {
  return Object.entries(docs).map(
    ([k, e]) => `| \`${k}\` | ${cell(e.value)} | ${e.default ?? ""} | ${cell(e.summary)} | ${e.spec ?? ""} |`,
  );
}

const ENTRY_HEAD = ["| Written | Meaning | Spec |", "|---|---|---|"];
const SETTING_HEAD = ["| Setting | Value | Default | Meaning | Spec |", "|---|---|---|---|---|"];

/** The generated tables, by region name. */
export function referenceTables(): Record<string, string> {
  return {
    keywords: [...ENTRY_HEAD, ...entryRows(KEYWORDS)].join("\n"),
    "column-attributes": [...ENTRY_HEAD, ...entryRows(COLUMN_ATTRIBUTE_DOCS)].join("\n"),
    "table-attributes": [...ENTRY_HEAD, ...entryRows(TABLE_ATTRIBUTE_DOCS)].join("\n"),
    "resource-settings": [...SETTING_HEAD, ...settingRows(RESOURCE_SETTING_DOCS)].join("\n"),
    "api-settings": [...SETTING_HEAD, ...settingRows(API_SETTING_DOCS), ...settingRows(SECURITY_SETTING_DOCS)].join(
      "\n",
    ),
    "generate-settings": [...SETTING_HEAD, ...settingRows(GENERATE_SETTING_DOCS)].join("\n"),
    "auth-settings": [...SETTING_HEAD, ...settingRows(AUTH_SETTING_DOCS), ...settingRows(JWT_SETTING_DOCS)].join("\n"),
    "database-settings": [...SETTING_HEAD, ...settingRows(DATABASE_SETTING_DOCS)].join("\n"),
    "access-settings": [...SETTING_HEAD, ...settingRows(ACCESS_SETTING_DOCS)].join("\n"),
  };
}

/**
 * `markdown` with every `<!-- reference:NAME -->…<!-- /reference -->`
 * region rewritten from reference.ts. Throws on an unknown region name.
 */
export function withReferenceTables(markdown: string): string {
  const tables = referenceTables();
  return markdown.replace(/<!-- reference:([a-z-]+) -->[\s\S]*?<!-- \/reference -->/g, (_, name: string) => {
    const table = tables[name];
    if (table === undefined) throw new Error(`unknown reference region "${name}"`);
    return `<!-- reference:${name} -->\n${table}\n<!-- /reference -->`;
  });
}

const THEME = "github-light";

const PAGE = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<!-- Generated from docs/language.md by grammar/textmate/render-docs.ts; do not edit. -->
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1f2328; }
pre.shiki { padding: 0.8rem 1rem; border-radius: 6px; overflow-x: auto; border: 1px solid #d0d7de; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; }
:not(pre) > code { background: #f6f8fa; padding: 0.1em 0.3em; border-radius: 4px; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d0d7de; padding: 0.3rem 0.6rem; vertical-align: top; text-align: left; }
</style>
</head>
<body>
${body}</body>
</html>
`;

/** docs/language.md rendered as a standalone HTML page, `resource` blocks highlighted. */
export async function languageHtml(markdown: string): Promise<string> {
  const highlighter = await createHighlighter({ themes: [THEME], langs: [resourceLanguage(), "shellscript"] });
  try {
    const marked = new Marked({
      renderer: {
        code({ text, lang }) {
          const language = lang === "resource" || lang === "sh" ? (lang === "sh" ? "shellscript" : lang) : "text";
          return highlighter.codeToHtml(text, { lang: language, theme: THEME });
        },
      },
    });
    const body = await marked.parse(markdown.replace(/^\uFEFF/, ""));
    const title = /^# (.*)$/m.exec(markdown)?.[1]?.replace(/`/g, "") ?? "The .resource language";
    return PAGE(title, body);
  } finally {
    highlighter.dispose();
  }
}

const isMain = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const md = fileURLToPath(new URL("../../docs/language.md", import.meta.url));
  const html = fileURLToPath(new URL("../../docs/language.html", import.meta.url));
  const updated = withReferenceTables(readFileSync(md, "utf8"));
  writeFileSync(md, updated);
  writeFileSync(html, await languageHtml(updated));
  console.log(`wrote ${md} and ${html}`);
}
