/**
 * The `resource "/path" { … }` block (docs/language.md, Resource settings;
 * spec: Resource declaration). Values are kept as written — a negative
 * ceiling included — for the validator to judge with `settingSpans`.
 */
import type { CstNode } from "chevrotain";
import type { Op, ResourceDecl, SecurityRequirementDecl } from "../../language/ir.js";
import { nameToken, node, nodes, token } from "./cst.js";
import { unquote, type Ctx } from "./context.js";
import { expectBoolean, expectInteger, expectNameList, expectSortTerms, expectString, type Where } from "./expect.js";
import { readValue, type Val } from "./values.js";
import { didYouMean } from "../../language/suggest.js";
import { readAction } from "./action.js";
import type { ReadType } from "./types.js";

/** Every op and named set accepted in `ops`, with what it expands to. */
export const OP_NAMES: Readonly<Record<string, readonly Op[]>> = {
  list: ["list"],
  read: ["read"],
  create: ["create"],
  update: ["update"],
  delete: ["delete"],
  crud: ["read", "create", "update", "delete"],
  reads: ["read", "list"],
};

const OP_ORDER: readonly Op[] = ["list", "read", "create", "update", "delete"];

type Handler = (v: Val, r: ResourceDecl, ctx: Ctx) => void;

function w(key: string): Where {
  return { what: `"${key}"`, code: "invalid-value" };
}

function ceiling(key: string, set: (r: ResourceDecl, n: number) => void): Handler {
  return (v, r, ctx) => {
    const n = expectInteger(v, w(key), ctx);
    if (n !== undefined) set(r, n);
  };
}

const handlers: Record<string, Handler> = {
  ops(v, r, ctx) {
    const items = expectNameList(v, w("ops"), ctx);
    if (!items) return;
    const set = new Set<Op>();
    for (const item of items) {
      const ops = Object.hasOwn(OP_NAMES, item.name) ? OP_NAMES[item.name] : undefined;
      if (!ops) {
        const hint = didYouMean(item.name, Object.keys(OP_NAMES));
        ctx.error(
          "unknown-op",
          hint
            ? `Unknown operation "${item.name}".${hint}`
            : `Unknown operation "${item.name}": use list, read, create, update, delete, crud or reads`,
          item.span,
        );
        continue;
      }
      for (const op of ops) set.add(op);
    }
    r.ops = OP_ORDER.filter((op) => set.has(op));
  },
  default_sort(v, r, ctx) {
    r.defaultSort = expectSortTerms(v, w("default_sort"), ctx) ?? [];
  },
  default_page_size: ceiling("default_page_size", (r, n) => (r.defaultPageSize = n)),
  max_page_size: ceiling("max_page_size", (r, n) => (r.maxPageSize = n)),
  max_filters: ceiling("max_filters", (r, n) => (r.maxFilters = n)),
  max_sort_terms: ceiling("max_sort_terms", (r, n) => (r.maxSortTerms = n)),
  max_offset: ceiling("max_offset", (r, n) => (r.maxOffset = n)),
  max_batch: ceiling("max_batch", (r, n) => (r.maxBatch = n)),
  security(v, r, ctx) {
    r.security = securityRequirements(v, ctx);
  },
  disable_transactions(v, r, ctx) {
    r.disableTransactions = expectBoolean(v, w("disable_transactions"), ctx) ?? false;
  },
  filtered_writes(v, r, ctx) {
    if (expectBoolean(v, w("filtered_writes"), ctx)) r.filteredWrites = true;
  },
  events(v, r, ctx) {
    if (expectBoolean(v, w("events"), ctx)) r.events = true;
  },
  computed(v, r, ctx) {
    const items = expectNameList(v, w("computed"), ctx);
    if (items) r.computed = items.map((i) => i.name);
  },
};

/** Names of every resource setting, for suggestions and the language reference. */
export const RESOURCE_SETTINGS: readonly string[] = Object.keys(handlers);

/** `[bearerAuth, oauth: ["read", "write"]]`: scheme names, each optionally with scopes. */
function securityRequirements(v: Val, ctx: Ctx): SecurityRequirementDecl[] {
  if (v.kind !== "list") {
    expectNameList(v, w("security"), ctx);
    return [];
  }
  const out: SecurityRequirementDecl[] = [];
  for (const item of v.items) {
    if (item.key === undefined) {
      if (item.value.kind === "name" && !item.value.negated) {
        out.push({ scheme: item.value.name, scopes: [], span: item.span });
      } else {
        expectNameList({ ...v, items: [item] }, w("security"), ctx);
      }
      continue;
    }
    const scopes: string[] = [];
    if (item.value.kind !== "list") {
      ctx.error(
        "invalid-value",
        `Expected a list of scope strings after "${item.key}:", found ${item.value.raw}`,
        item.value.span,
      );
    } else {
      for (const s of item.value.items) {
        const scope =
          s.key === undefined
            ? expectString(s.value, { what: `a scope of "${item.key}"`, code: "invalid-value" }, ctx)
            : undefined;
        if (scope !== undefined) scopes.push(scope);
      }
    }
    out.push({ scheme: item.key, scopes, span: item.span });
  }
  return out;
}

/**
 * Builds a `ResourceDecl` from a `resourceDecl` node, its declared actions
 * included (their field types are added to `types`). Unknown settings
 * (`unknown-setting`, with a suggestion) and repeated ones
 * (`duplicate-setting`) are reported and skipped. `settingSpans` maps each
 * key to the span of its value, the part a validator message is about.
 */
export function readResource(n: CstNode, ctx: Ctx, types: ReadType[]): ResourceDecl {
  const keyword = token(n, "Resource");
  const pathToken = token(n, "path");
  const unquoted = nameToken(node(n, "unquotedPath"));
  if (unquoted) {
    ctx.error(
      "invalid-value",
      `The resource path is a string starting with "/": write resource "/${unquoted.image}"`,
      ctx.tok(unquoted),
    );
  }
  const r: ResourceDecl = {
    path: pathToken ? unquote(pathToken.image) : unquoted ? `/${unquoted.image}` : "",
    ops: [],
    defaultSort: [],
    security: [],
    disableTransactions: false,
    span: ctx.nodeSpan(n, keyword),
    settingSpans: {},
  };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) r.doc = doc;
  const body = node(n, "resourceBody");
  for (const a of nodes(body, "actionDecl")) {
    const action = readAction(a, ctx, types);
    if (!action) continue;
    const first = r.actions?.find((x) => x.name === action.name);
    if (first) {
      ctx.error(
        "duplicate-action",
        `Duplicate action "${action.name}" (first declared at line ${first.span.line}): an action name is used once per resource`,
        action.nameSpan,
      );
      continue;
    }
    (r.actions ??= []).push(action);
  }
  for (const s of nodes(body, "setting")) {
    const key = token(s, "key");
    if (!key) continue;
    const value = readValue(node(s, "value"), ctx);
    const handler = Object.hasOwn(handlers, key.image) ? handlers[key.image] : undefined;
    if (!handler) {
      const hint = didYouMean(key.image, RESOURCE_SETTINGS);
      ctx.error(
        "unknown-setting",
        hint ? `Unknown resource setting "${key.image}".${hint}` : `Unknown resource setting "${key.image}"`,
        ctx.tok(key),
      );
      continue;
    }
    if (r.settingSpans[key.image]) {
      ctx.error(
        "duplicate-setting",
        `Setting "${key.image}" is already given at line ${r.settingSpans[key.image]!.line}`,
        ctx.tok(key),
      );
      continue;
    }
    r.settingSpans[key.image] = value.span;
    handler(value, r, ctx);
  }
  return r;
}
