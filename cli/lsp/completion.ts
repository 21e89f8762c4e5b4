/**
 * Completion: keywords, attributes, types, setting keys and values, and the
 * names of tables and columns where an argument or list expects them
 * (`@ref(…, target)`, `default_sort = [ … ]`, `@@index([ … ])`). The
 * candidates and their documentation come from `reference.ts` and from the
 * document's own schema.
 */
import { CompletionItemKind, type CompletionItem, type Range } from "vscode-languageserver";
import type { TableDecl } from "../../language/ir.js";
import { BLOCK_ATTRIBUTES, BUILTIN_TYPES, COLUMN_ATTRIBUTES, OP_NAMES } from "../../grammar/index.js";
import type { Analysis, Frame } from "./analysis.js";
import { columnSummary } from "./describe.js";
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
  TYPE_DOCS,
  type SettingEntry,
} from "../../grammar/textmate/reference.js";

const md = (value: string) => ({ kind: "markdown" as const, value });

/** Where the completion applies: the partial word before the cursor and its range. */
export interface CompletionPlace {
  offset: number;
  /** The range of the partial word being replaced (an `@` or `@@` included). */
  range: Range;
}

function item(
  label: string,
  kind: CompletionItemKind,
  range: Range,
  doc?: string,
  detail?: string,
  insert?: string,
): CompletionItem {
  const out: CompletionItem = { label, kind, textEdit: { range, newText: insert ?? label }, filterText: label };
  if (doc !== undefined) out.documentation = md(doc);
  if (detail !== undefined) out.detail = detail;
  return out;
}

function settingItems(
  docs: Readonly<Record<string, SettingEntry>>,
  range: Range,
  taken: Set<string>,
): CompletionItem[] {
  return Object.entries(docs)
    .filter(([k]) => !taken.has(k))
    .map(([k, e]) => item(k, CompletionItemKind.Property, range, entryMarkdown(e), e.value, `${k} = `));
}

function columnItems(
  t: TableDecl | undefined,
  range: Range,
  which: (c: TableDecl["columns"][number]) => boolean = () => true,
): CompletionItem[] {
  return (t?.columns ?? [])
    .filter(which)
    .map((c) => item(c.name, CompletionItemKind.Field, range, columnSummary(t!, c), `${t!.name}.${c.name}`));
}

function typeItems(a: Analysis, range: Range): CompletionItem[] {
  const canonical = [...new Set(BUILTIN_TYPES.values())];
  return [
    ...canonical.map((t) => item(t, CompletionItemKind.TypeParameter, range, TYPE_DOCS[t], "built-in type")),
    ...a.schema.enums.map((e) =>
      item(e.name, CompletionItemKind.Enum, range, `${e.doc ?? ""}\n\nValues: ${e.values.join(", ")}`.trim(), "enum"),
    ),
    ...a.schema.domains.map((d) =>
      item(d.name, CompletionItemKind.TypeParameter, range, d.doc, `domain over ${d.base.name}`),
    ),
  ];
}

/** Setting keys already written in the block around the cursor (so they are not offered twice). */
function keysInBlock(a: Analysis, end: number): Set<string> {
  const keys = new Set<string>();
  let depth = 0;
  for (let i = end - 1; i >= 0; i--) {
    const t = a.tokens[i]!.image;
    if (t === "}" || t === ")" || t === "]") depth++;
    else if (t === "{" || t === "(" || t === "[") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && a.tokens[i + 1]?.image === "=") keys.add(t);
  }
  return keys;
}

/** Values offered after `key =` in a settings block, or inside the list of `key = [ … ]`. */
function settingValues(a: Analysis, key: string, table: TableDecl | undefined, range: Range): CompletionItem[] {
  switch (key) {
    case "ops":
      return Object.keys(OP_NAMES).map((o) => item(o, CompletionItemKind.EnumMember, range, OP_DOCS[o]));
    case "default_sort":
      return columnItems(table, range, (c) => c.sortable !== undefined);
    case "computed":
      return columnItems(table, range, (c) => c.computed !== undefined);
    case "security":
      return (a.schema.api?.securitySchemes ?? []).map((s) =>
        item(s.name, CompletionItemKind.Constant, range, `HTTP scheme \`${s.scheme}\``),
      );
    case "disable_transactions":
      return ["true", "false"].map((v) => item(v, CompletionItemKind.Value, range));
    case "order":
      return columnItems(table, range, (c) => c.sortable !== undefined);
    case "":
      return columnItems(table, range);
    default:
      return [];
  }
}

/** Candidates inside the arguments of `owner` (`@ref`, `@sortable`, `@@index`, …). */
function argumentItems(
  a: Analysis,
  owner: string,
  before: string[],
  table: TableDecl | undefined,
  offset: number,
  range: Range,
): CompletionItem[] {
  const key = before.at(-1) === ":" ? before.at(-2) : undefined;
  const named = (names: string[]) =>
    names.map((n) => item(`${n}:`, CompletionItemKind.Property, range, undefined, undefined, `${n}: `));
  switch (owner) {
    case "@ref": {
      if (key === "column") {
        const col = table ? a.columnAt(table, offset) : undefined;
        const target = a.schema.tables.find((t) => t.name === col?.ref?.target);
        return columnItems(target, range);
      }
      return [
        ...a.schema.tables.map((t) => item(t.name, CompletionItemKind.Class, range, t.doc, "table")),
        item(
          "expandable",
          CompletionItemKind.Keyword,
          range,
          "`?expand=relation` returns the target row under the relation's name.",
        ),
        ...named(["column"]),
      ];
    }
    case "@inverse":
      return [
        item("expandable", CompletionItemKind.Keyword, range, "The collection of children can be expanded."),
        ...named(["order", "limit"]),
      ];
    case "@sortable":
      return key === "nulls"
        ? ["first", "last"].map((v) => item(v, CompletionItemKind.Value, range))
        : named(["nulls"]);
    case "@@index":
      if (key === "using")
        return ["btree", "gin", "gist", "hash", "brin"].map((v) => item(v, CompletionItemKind.Value, range));
      if (key === "unique") return ["true", "false"].map((v) => item(v, CompletionItemKind.Value, range));
      return named(["using", "unique", "name"]);
    case "@default": {
      const col = table ? a.columnAt(table, offset) : undefined;
      const e = a.schema.enums.find((x) => x.name === col?.type.name);
      return [
        ...(e?.values ?? [])
          .filter((v) => /^[A-Za-z_]\w*$/.test(v))
          .map((v) => item(v, CompletionItemKind.EnumMember, range, `A value of enum \`${e!.name}\`.`)),
        ...["identity", "now()", "gen_random_uuid()", "true", "false", "null", 'sql("")'].map((v) =>
          item(v, CompletionItemKind.Value, range),
        ),
      ];
    }
    default:
      return [];
  }
}

/** The completion items at `place` in the analysed document. */
export function complete(a: Analysis, place: CompletionPlace): CompletionItem[] {
  const lineStart = a.text.lastIndexOf("\n", place.offset - 1) + 1;
  const prefix = /@{0,2}[A-Za-z0-9_]*$/.exec(a.text.slice(lineStart, place.offset))?.[0] ?? "";
  const start = place.offset - prefix.length;
  const index = a.indexAt(start);
  const frames: Frame[] = a.framesBefore(index);
  const top = frames.at(-1);
  const table = [...frames].reverse().find((f): f is { kind: "table"; name: string } => f.kind === "table");
  const tableDecl = table ? a.schema.tables.find((t) => t.name === table.name) : undefined;
  const line = a.lineOf(start);
  const onLine = a.tokens
    .slice(0, index)
    .filter((t) => t.startLine === line)
    .map((t) => t.image);
  const before = a.tokens.slice(Math.max(0, index - 3), index).map((t) => t.image);
  const range = place.range;

  if (prefix.startsWith("@@")) {
    return BLOCK_ATTRIBUTES.map((n) =>
      item(`@@${n}`, CompletionItemKind.Function, range, entryMarkdown(TABLE_ATTRIBUTE_DOCS[n]!)),
    );
  }
  if (prefix.startsWith("@")) {
    if (!table)
      return [item("@check", CompletionItemKind.Function, range, entryMarkdown(COLUMN_ATTRIBUTE_DOCS["check"]!))];
    const col = tableDecl ? a.columnAt(tableDecl, place.offset) : undefined;
    const used = new Set(col?.attributes.map((u) => u.name) ?? []);
    return COLUMN_ATTRIBUTES.filter((n) => !used.has(n)).map((n) =>
      item(`@${n}`, CompletionItemKind.Function, range, entryMarkdown(COLUMN_ATTRIBUTE_DOCS[n]!)),
    );
  }

  switch (top?.kind) {
    case undefined:
      if (onLine.length === 0)
        return Object.entries(KEYWORDS)
          .filter(([k]) => k !== "resource" && k !== "security")
          .map(([k, e]) => item(k, CompletionItemKind.Keyword, range, entryMarkdown(e)));
      if (onLine[0] === "domain" && onLine.length === 2) return typeItems(a, range);
      return [];
    case "table":
      if (onLine.length === 0) {
        return [
          item(
            "resource",
            CompletionItemKind.Keyword,
            range,
            entryMarkdown(KEYWORDS["resource"]!),
            undefined,
            `resource "/${table?.name ?? ""}" {\n    ops = [crud, list]\n  }`,
          ),
          ...BLOCK_ATTRIBUTES.map((n) =>
            item(`@@${n}`, CompletionItemKind.Function, range, entryMarkdown(TABLE_ATTRIBUTE_DOCS[n]!)),
          ),
        ];
      }
      if (onLine.length === 1 && /^[A-Za-z_]/.test(onLine[0]!)) return typeItems(a, range);
      return [];
    case "resource":
    case "api":
    case "generate":
    case "security": {
      if (before.at(-1) === "=") return settingValues(a, before.at(-2) ?? "", tableDecl, range);
      if (onLine.length > 0 && before.at(-1) !== "," && before.at(-1) !== "{") return [];
      const docs = {
        resource: RESOURCE_SETTING_DOCS,
        api: API_SETTING_DOCS,
        generate: GENERATE_SETTING_DOCS,
        security: SECURITY_SETTING_DOCS,
      }[top.kind];
      const items = settingItems(docs, range, keysInBlock(a, index));
      if (top.kind === "api")
        items.push(
          item(
            "security",
            CompletionItemKind.Keyword,
            range,
            entryMarkdown(KEYWORDS["security"]!),
            undefined,
            'security bearerAuth { scheme = "bearer", bearer_format = "JWT" }',
          ),
        );
      return items;
    }
    case "list": {
      const args = [...frames].reverse().find((f): f is { kind: "args"; owner: string } => f.kind === "args");
      if (top.key === "" && args && !["@@index", "@@unique", "@@primary_key"].includes(args.owner)) return [];
      return settingValues(a, top.key, tableDecl, range);
    }
    case "args":
      return argumentItems(a, top.owner, before, tableDecl, place.offset, range);
    default:
      return [];
  }
}
