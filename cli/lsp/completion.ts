/**
 * Completion: keywords, attributes, types, setting keys and values, and the
 * names of tables and columns where an argument or list expects them
 * (`@ref(…, target)`, `default_sort = [ … ]`, `@@index([ … ])`). The
 * candidates and their documentation come from `reference.ts` and from the
 * document's own schema.
 */
import { CompletionItemKind, type CompletionItem, type Range } from "vscode-languageserver";
import type { TableDecl } from "../../language/ir.js";
import {
  BLOCK_ATTRIBUTES,
  BUILTIN_TYPES,
  CLAIM_ATTRIBUTES,
  COLUMN_ATTRIBUTES,
  JWT_ALGORITHMS,
  OP_NAMES,
} from "../../grammar/index.js";
import { declaredRoles } from "../../compiler/access.js";
import type { Analysis, Frame } from "./analysis.js";
import { columnSummary, typeText } from "./describe.js";
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
  TYPE_DOCS,
  type SettingEntry,
} from "../../grammar/textmate/reference.js";

const md = (value: string) => ({ kind: "markdown" as const, value });

/** The keywords that start a declaration, offered at the top level. */
const TOP_LEVEL = ["api", "auth", "generate", "enum", "domain", "table"];

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

/** The roles of the auth block (the anonymous one included), for `access` headers, `default_role` and `anonymous`. */
function roleItems(a: Analysis, range: Range): CompletionItem[] {
  const auth = a.schema.auth;
  if (!auth) return [];
  return declaredRoles(auth).map((r) =>
    item(
      r,
      CompletionItemKind.Constant,
      range,
      r === auth.anonymous ? "The role of a request without a token." : undefined,
      "role",
    ),
  );
}

/** The claims rules may name after `claim.`: those declared, and `sub`. */
function claimItems(a: Analysis, range: Range, prefix = ""): CompletionItem[] {
  const claims = [...(a.schema.auth?.claims ?? [])];
  const out = claims.map((c) =>
    item(
      `${prefix}${c.name}`,
      CompletionItemKind.Variable,
      range,
      c.path !== undefined ? `At \`${c.path}\` in the token's payload.` : undefined,
      `claim ${typeText(c)}`,
    ),
  );
  if (!claims.some((c) => c.name === "sub"))
    out.push(item(`${prefix}sub`, CompletionItemKind.Variable, range, "The token's subject.", "claim text"));
  return out;
}

/** What an access block's `ops` (or `rows(…)`) may name: operations, sets, `events` and the resource's actions. */
function accessOpItems(table: TableDecl | undefined, range: Range): CompletionItem[] {
  const docs: Record<string, string> = { ...OP_DOCS, ...ACCESS_OP_DOCS };
  return [
    ...Object.entries(docs).map(([o, d]) => item(o, CompletionItemKind.EnumMember, range, d)),
    ...(table?.resource?.actions ?? []).map((x) => item(x.name, CompletionItemKind.Method, range, x.doc, "action")),
  ];
}

/** The statements of an access block, at the start of one of its lines. */
function accessStatementItems(a: Analysis, index: number, range: Range): CompletionItem[] {
  const words: Record<string, string> = {
    rows: "rows ",
    check: "check ",
    stamp: "stamp ",
    hide: "hide [",
  };
  return [
    ...settingItems(ACCESS_SETTING_DOCS, range, keysInBlock(a, index)),
    ...Object.entries(words).map(([w, insert]) =>
      item(w, CompletionItemKind.Keyword, range, entryMarkdown(KEYWORDS[w]!), undefined, insert),
    ),
  ];
}

/**
 * Inside a rule (`rows …`, `check …`) or a stamp: claims after `claim.`,
 * the target's columns after `relation.`, `claim.` names after an
 * operator, and otherwise the row's columns and forward relations.
 */
function ruleItems(a: Analysis, table: TableDecl | undefined, before: string[], range: Range): CompletionItem[] {
  const last = before.at(-1);
  if (last === ".") {
    const owner = before.at(-2);
    if (owner === "claim") return claimItems(a, range);
    const ref = table?.columns.find((c) => c.ref?.relation === owner)?.ref;
    return columnItems(
      a.schema.tables.find((t) => t.name === ref?.target),
      range,
      (c) => !c.hidden,
    );
  }
  if (last !== undefined && ["=", "!=", "<", "<=", ">", ">=", "in", "has"].includes(last))
    return claimItems(a, range, "claim.");
  return [
    ...columnItems(table, range, (c) => !c.hidden),
    ...(table?.columns ?? [])
      .filter((c) => c.ref)
      .map((c) =>
        item(
          c.ref!.relation,
          CompletionItemKind.Module,
          range,
          `Forward relation to \`${c.ref!.target}\`.`,
          "relation",
        ),
      ),
  ];
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
    case "rows":
      return accessOpItems(table, range);
    case "@path":
      return [];
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
    if (top?.kind === "auth")
      return CLAIM_ATTRIBUTES.map((n) =>
        item(
          `@${n}`,
          CompletionItemKind.Function,
          range,
          'Where the claim sits in the payload: `@path("app_metadata.org")`.',
        ),
      );
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
          .filter(([k]) => TOP_LEVEL.includes(k))
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
          ...(a.schema.auth
            ? [
                item(
                  "access",
                  CompletionItemKind.Keyword,
                  range,
                  entryMarkdown(KEYWORDS["access"]!),
                  undefined,
                  `access ${a.schema.auth.roles[0] ?? "role"} {\n    ops = [reads]\n  }`,
                ),
              ]
            : []),
        ];
      }
      // `access ` and `access a, `: the roles, when there is an auth block (otherwise a column called access).
      if (onLine[0] === "access" && a.schema.auth && (onLine.length === 1 || onLine.at(-1) === ","))
        return roleItems(a, range);
      if (onLine.length === 1 && /^[A-Za-z_]/.test(onLine[0]!)) return typeItems(a, range);
      return [];
    case "auth":
      if (before.at(-1) === "=") {
        const key = before.at(-2);
        return key === "default_role" || key === "anonymous" ? roleItems(a, range) : [];
      }
      if (onLine[0] === "claim") return onLine.length === 2 ? typeItems(a, range) : [];
      if (onLine.length > 0 && before.at(-1) !== "," && before.at(-1) !== "{") return [];
      return [
        ...settingItems(AUTH_SETTING_DOCS, range, keysInBlock(a, index)),
        item("claim", CompletionItemKind.Keyword, range, entryMarkdown(KEYWORDS["claim"]!), undefined, "claim "),
        item(
          "jwt",
          CompletionItemKind.Keyword,
          range,
          entryMarkdown(KEYWORDS["jwt"]!),
          undefined,
          "jwt {\n    algorithms = [HS256]\n  }",
        ),
        item(
          "database",
          CompletionItemKind.Keyword,
          range,
          entryMarkdown(KEYWORDS["database"]!),
          undefined,
          "database {\n    role = principal\n  }",
        ),
      ];
    case "jwt":
      if (before.at(-1) === "=") return [];
      if (onLine.length > 0 && before.at(-1) !== "," && before.at(-1) !== "{") return [];
      return settingItems(JWT_SETTING_DOCS, range, keysInBlock(a, index));
    case "database":
      // `role = principal`; every other value is a database name, written as a string.
      if (before.at(-1) === "=")
        return before.at(-2) === "role"
          ? [item("principal", CompletionItemKind.EnumMember, range, DATABASE_SETTING_DOCS["role"]!.summary)]
          : [];
      if (onLine.length > 0 && before.at(-1) !== "," && before.at(-1) !== "{") return [];
      return settingItems(DATABASE_SETTING_DOCS, range, keysInBlock(a, index));
    case "access": {
      const statement = onLine.find((w) => w !== "{" && w !== "," && w !== "}");
      if (statement === "rows" || statement === "check" || statement === "stamp") {
        if (statement === "stamp" && onLine.length === 1) return columnItems(tableDecl, range, (c) => !c.hidden);
        if (statement === "stamp" && before.at(-1) === "=") return claimItems(a, range, "claim.");
        return ruleItems(a, tableDecl, before, range);
      }
      if (onLine.length > 0 && before.at(-1) !== "," && before.at(-1) !== "{" && before.at(-1) !== "}") return [];
      return accessStatementItems(a, index, range);
    }
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
      const block = [...frames].reverse().find((f) => f.kind !== "list" && f.kind !== "args");
      if (block?.kind === "access") {
        if (top.key === "ops") return accessOpItems(tableDecl, range);
        if (top.key === "hide") return columnItems(tableDecl, range, (c) => !tableDecl!.primaryKey.includes(c.name));
        return [];
      }
      if (block?.kind === "jwt" && top.key === "algorithms")
        return JWT_ALGORITHMS.map((x) => item(x, CompletionItemKind.EnumMember, range));
      if (block?.kind === "auth") return [];
      const args = [...frames].reverse().find((f): f is { kind: "args"; owner: string } => f.kind === "args");
      if (top.key === "" && args && !["@@index", "@@unique", "@@primary_key"].includes(args.owner)) return [];
      return settingValues(a, top.key, tableDecl, range);
    }
    case "args": {
      // Parentheses in an access block: `rows(op, …)`'s operations, or a rule's own grouping.
      if (frames.some((f) => f.kind === "access")) {
        let open = index - 1;
        while (open >= 0 && a.tokens[open]!.image !== "(") open--;
        const inside = a.tokens.slice(open + 1, index).map((t) => t.image);
        const opList =
          top.owner === "rows" &&
          inside.every((w) => w === "," || /^[A-Za-z_]\w*$/.test(w)) &&
          (inside.length === 0 || inside.at(-1) === ",");
        return opList ? accessOpItems(tableDecl, range) : ruleItems(a, tableDecl, before, range);
      }
      return argumentItems(a, top.owner, before, tableDecl, place.offset, range);
    }
    default:
      return [];
  }
}
