/**
 * Column attributes (`@primary_key`, `@ref(…)`, …) and what each sets on a
 * `ColumnDecl` (docs/language.md, Column attributes; spec: Column
 * capabilities). Only shape is checked here — argument counts, kinds and
 * names; the meaning across columns and tables is the validator's.
 */
import type { ColumnDecl, DefaultValue } from "../../language/ir.js";
import type { Ctx } from "./context.js";
import { requirePositional, splitArgs, type AttrUse } from "./args.js";
import { expectChoice, expectInteger, expectName, expectSortTerms, expectString, type Where } from "./expect.js";
import type { Val } from "./values.js";
import { didYouMean } from "../../language/suggest.js";
import { readDatabaseName } from "./db-name.js";

type Handler = (use: AttrUse, col: ColumnDecl, ctx: Ctx) => void;

function arg(use: AttrUse): Where {
  return { what: use.written, code: "invalid-argument" };
}

function flag(set: (col: ColumnDecl) => void): Handler {
  return (use, col, ctx) => {
    splitArgs(use, [], 0, use.written, ctx);
    set(col);
  };
}

/** Reads the value of `@default(…)` (docs/language.md, Defaults). */
export function defaultValue(v: Val, use: AttrUse, ctx: Ctx): DefaultValue | undefined {
  switch (v.kind) {
    case "string":
      return { kind: "literal", value: v.value };
    case "number":
      return { kind: "literal", value: v.value };
    case "name":
      if (v.negated) break;
      if (v.name === "true" || v.name === "false") return { kind: "literal", value: v.name === "true" };
      if (v.name === "null") return { kind: "literal", value: null };
      if (v.name === "identity") return { kind: "identity" };
      return { kind: "enum-value", value: v.name };
    case "call":
      if (v.name === "autoincrement") {
        if (v.args.length > 0) ctx.error("invalid-argument", `autoincrement() takes no arguments`, v.args[0]!.span);
        return { kind: "identity" };
      }
      if (v.name === "sql") {
        const only = v.args[0];
        if (v.args.length !== 1 || only?.key !== undefined || only?.value.kind !== "string") {
          ctx.error("invalid-argument", `sql(…) takes one string of SQL: @default(sql("now()"))`, v.span);
          return undefined;
        }
        return { kind: "sql", sql: only.value.value };
      }
      return { kind: "sql", sql: v.raw };
    case "sql":
      return { kind: "sql", sql: v.raw };
    case "missing":
      return undefined;
    case "list":
      break;
  }
  ctx.error(
    "invalid-argument",
    `@default needs a literal, an enum value, identity, a call like now() or sql("…"), found ${v.raw}`,
    v.span,
  );
  return undefined;
}

const handlers: Record<string, Handler> = {
  primary_key: flag((c) => (c.primaryKey = true)),
  unique: flag((c) => (c.unique = true)),
  filterable: flag((c) => (c.filterable = true)),
  searchable: flag((c) => (c.searchable = true)),
  hidden: flag((c) => (c.hidden = true)),
  read_only: flag((c) => (c.readOnly = true)),
  stamped: flag((c) => (c.stamped = true)),
  immutable: flag((c) => (c.immutable = true)),
  soft_delete: flag((c) => (c.softDelete = true)),
  // Recorded in `attributes`; grammar/to-ir/table.ts moves the column to the table's `ignored` list.
  ignore: flag(() => {}),

  default(use, col, ctx) {
    const usage = "@default(value)";
    const a = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const d = defaultValue(a.positional[0]!.value, use, ctx);
    if (d) col.default = d;
  },

  sortable(use, col, ctx) {
    const a = splitArgs(use, ["nulls"], 0, "@sortable or @sortable(nulls: last)", ctx);
    const nulls = a.named.get("nulls");
    col.sortable = {};
    if (nulls) {
      const placement = expectChoice(nulls.value, ["first", "last"] as const, arg(use), ctx);
      if (placement) col.sortable.nulls = placement;
    }
  },

  computed(use, col, ctx) {
    const usage = `@computed("sql expression")`;
    const a = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const sql = expectString(a.positional[0]!.value, arg(use), ctx);
    if (sql !== undefined) col.computed = sql;
  },

  map(use, col, ctx) {
    const name = readDatabaseName(use, ctx);
    if (name !== undefined) col.dbName = name;
  },

  renamed_from(use, col, ctx) {
    const usage = "@renamed_from(old_name)";
    const a = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const name = expectName(a.positional[0]!.value, { ...arg(use), what: `the old name in ${use.written}` }, ctx);
    if (name !== undefined) col.renamedFrom = name;
  },

  check(use, col, ctx) {
    const usage = `@check("sql condition")`;
    const a = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const sql = expectString(a.positional[0]!.value, arg(use), ctx);
    if (sql !== undefined) col.check = sql;
  },

  ref(use, col, ctx) {
    const usage = "@ref(relation, target_table[, expandable][, column: target_column])";
    const a = splitArgs(use, ["column"], 3, usage, ctx);
    if (!requirePositional(use, a, 2, usage, ctx)) return;
    const relation = expectName(
      a.positional[0]!.value,
      { ...arg(use), what: `the relation name of ${use.written}` },
      ctx,
    );
    const target = expectName(a.positional[1]!.value, { ...arg(use), what: `the target table of ${use.written}` }, ctx);
    const expandable = expandableFlag(a.positional[2]?.value, use, ctx);
    if (relation === undefined || target === undefined) return;
    col.ref = { relation, target, expandable, span: use.span };
    const column = a.named.get("column");
    if (column) {
      const c = expectName(column.value, arg(use), ctx);
      if (c !== undefined) col.ref.targetColumn = c;
    }
  },

  inverse(use, col, ctx) {
    const usage = "@inverse(name[, expandable][, order: [a, -b]][, limit: 20])";
    const a = splitArgs(use, ["order", "limit"], 2, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const name = expectName(a.positional[0]!.value, { ...arg(use), what: `the relation name of ${use.written}` }, ctx);
    const expandable = expandableFlag(a.positional[1]?.value, use, ctx);
    if (name === undefined) return;
    col.inverse = { name, expandable, order: [], span: use.span };
    const order = a.named.get("order");
    if (order)
      col.inverse.order = expectSortTerms(order.value, { ...arg(use), what: `the order of ${use.written}` }, ctx) ?? [];
    const limit = a.named.get("limit");
    if (limit) {
      const n = expectInteger(limit.value, { ...arg(use), what: `limit of ${use.written}` }, ctx);
      if (n !== undefined) col.inverse.limit = n;
    }
  },
};

function expandableFlag(v: Val | undefined, use: AttrUse, ctx: Ctx): boolean {
  if (!v) return false;
  if (v.kind === "name" && !v.negated && v.name === "expandable") return true;
  const hint = v.kind === "name" ? didYouMean(v.name, ["expandable"]) : "";
  const found = `Expected "expandable" or a named argument in ${use.written}, found ${v.raw}`;
  ctx.error("invalid-argument", hint ? `${found}.${hint}` : found, v.span);
  return false;
}

/** Names of every column attribute, for suggestions and the language reference. */
export const COLUMN_ATTRIBUTES: readonly string[] = Object.keys(handlers);

/** Table attributes that users sometimes write on a column by mistake. */
const BLOCK_ONLY = new Set(["index", "scoped", "schema"]);

/**
 * Applies one attribute to `col`, recording its use. Unknown attributes
 * (`unknown-attribute`, with the closest known name) and a second use of the
 * same attribute (`duplicate-attribute`) are reported and ignored.
 */
export function applyColumnAttribute(use: AttrUse, col: ColumnDecl, ctx: Ctx): void {
  const handler = Object.hasOwn(handlers, use.name) ? handlers[use.name] : undefined;
  if (!handler) {
    if (BLOCK_ONLY.has(use.name)) {
      ctx.error(
        "unknown-attribute",
        `"@${use.name}" is a table attribute: write @@${use.name}(…) in the table body, not on a column`,
        use.nameSpan,
      );
      return;
    }
    const hint = didYouMean(use.name, COLUMN_ATTRIBUTES, "@");
    const unknown = `Unknown attribute "${use.written}"`;
    ctx.error("unknown-attribute", hint ? `${unknown}.${hint}` : unknown, use.nameSpan);
    return;
  }
  if (col.attributes.some((a) => a.name === use.name)) {
    ctx.error("duplicate-attribute", `Duplicate attribute "${use.written}" on column "${col.name}"`, use.nameSpan);
    return;
  }
  col.attributes.push({ name: use.name, span: use.span });
  handler(use, col, ctx);
}
