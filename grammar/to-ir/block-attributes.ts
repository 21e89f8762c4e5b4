/**
 * Table (block) attributes: `@@primary_key`, `@@index`, `@@unique`,
 * `@@scoped`, `@@renamed_from`, `@@map`, `@@schema` (docs/language.md, Table attributes).
 */
import type { IndexDecl, Span, TableDecl } from "../../language/ir.js";
import type { Ctx } from "./context.js";
import { requirePositional, splitArgs, type AttrUse } from "./args.js";
import { expectBoolean, expectName, expectNameList, expectString, type Where } from "./expect.js";
import { COLUMN_ATTRIBUTES } from "./attributes.js";
import { didYouMean } from "../../language/suggest.js";
import { readDatabaseName } from "./db-name.js";

/** What a table's block attributes contribute, before it is merged with the columns. */
export interface BlockFacts {
  /** From `@@primary_key`, with the attribute's span and the unique index serving it (`index: "name"`). */
  primaryKey?: { columns: string[]; span: Span; index?: string };
  indexes: IndexDecl[];
  uniques: string[][];
  scoped: boolean;
  /** From `@@renamed_from(old)`. */
  renamedFrom?: string;
  /** From `@@map("Name")`: the table's name in the database. */
  dbName?: string;
  /** From `@@schema("name")`: the table's namespace. */
  schema?: string;
}

type Handler = (use: AttrUse, facts: BlockFacts, ctx: Ctx) => void;

function where(use: AttrUse): Where {
  return { what: use.written, code: "invalid-argument" };
}

function columnList(use: AttrUse, usage: string, keys: readonly string[], ctx: Ctx) {
  const a = splitArgs(use, keys, 1, usage, ctx);
  if (!requirePositional(use, a, 1, usage, ctx)) return undefined;
  const cols = expectNameList(a.positional[0]!.value, { ...where(use), what: `the columns of ${use.written}` }, ctx);
  if (cols && cols.length === 0) {
    ctx.error("invalid-argument", `${use.written} needs at least one column: write ${usage}`, a.positional[0]!.span);
    return undefined;
  }
  return cols ? { columns: cols.map((c) => c.name), named: a.named } : undefined;
}

const handlers: Record<string, Handler> = {
  primary_key(use, facts, ctx) {
    const r = columnList(use, `@@primary_key([a, b][, index: "name"])`, ["index"], ctx);
    if (!r) return;
    facts.primaryKey = { columns: r.columns, span: use.span };
    // docs/decisions/1376-composite-key-address.md: a key served by a unique index, not a PRIMARY KEY constraint.
    const index = r.named.get("index");
    if (index) {
      const n = expectString(index.value, { ...where(use), what: `index: of ${use.written}` }, ctx);
      if (n !== undefined) facts.primaryKey.index = n;
    }
  },
  index(use, facts, ctx) {
    const r = columnList(
      use,
      `@@index([a, b][, using: gin][, unique: true][, name: "idx"])`,
      ["using", "unique", "name"],
      ctx,
    );
    if (!r) return;
    const index: IndexDecl = { columns: r.columns, unique: false, span: use.span };
    const using = r.named.get("using");
    if (using) {
      const m = expectName(using.value, { ...where(use), what: `using: of ${use.written}` }, ctx);
      if (m !== undefined) index.using = m;
    }
    const unique = r.named.get("unique");
    if (unique)
      index.unique = expectBoolean(unique.value, { ...where(use), what: `unique: of ${use.written}` }, ctx) ?? false;
    const name = r.named.get("name");
    if (name) {
      const n = expectString(name.value, { ...where(use), what: `name: of ${use.written}` }, ctx);
      if (n !== undefined) index.name = n;
    }
    facts.indexes.push(index);
  },
  unique(use, facts, ctx) {
    const r = columnList(use, "@@unique([a, b])", [], ctx);
    if (r) facts.uniques.push(r.columns);
  },
  renamed_from(use, facts, ctx) {
    const usage = "@@renamed_from(old_name)";
    const a = splitArgs(use, [], 1, usage, ctx);
    if (!requirePositional(use, a, 1, usage, ctx)) return;
    const name = expectName(a.positional[0]!.value, { ...where(use), what: `the old name in ${use.written}` }, ctx);
    if (name !== undefined) facts.renamedFrom = name;
  },
  map(use, facts, ctx) {
    if (facts.dbName !== undefined) ctx.error("duplicate-attribute", `Duplicate attribute "@@map"`, use.nameSpan);
    const name = readDatabaseName(use, ctx);
    if (name !== undefined) facts.dbName ??= name;
  },
  schema(use, facts, ctx) {
    if (facts.schema !== undefined) ctx.error("duplicate-attribute", `Duplicate attribute "@@schema"`, use.nameSpan);
    const name = readDatabaseName(use, ctx);
    if (name !== undefined) facts.schema ??= name;
  },
  scoped(use, facts, ctx) {
    splitArgs(use, [], 0, "@@scoped", ctx);
    if (facts.scoped) ctx.error("duplicate-attribute", `Duplicate attribute "@@scoped"`, use.nameSpan);
    facts.scoped = true;
  },
};

/** Names of every table attribute, for suggestions and the language reference. */
export const BLOCK_ATTRIBUTES: readonly string[] = Object.keys(handlers);

/**
 * Applies one `@@attribute` to `facts`. An unknown name is reported as
 * `unknown-attribute` with the closest table attribute, or with a pointer
 * to the column form when it is a column attribute; a second
 * `@@primary_key` as `duplicate-primary-key`.
 */
export function applyBlockAttribute(use: AttrUse, facts: BlockFacts, ctx: Ctx): void {
  const handler = Object.hasOwn(handlers, use.name) ? handlers[use.name] : undefined;
  if (!handler) {
    if (COLUMN_ATTRIBUTES.includes(use.name)) {
      ctx.error(
        "unknown-attribute",
        `"@@${use.name}" is not a table attribute: write @${use.name} on the column it applies to`,
        use.nameSpan,
      );
      return;
    }
    const hint = didYouMean(use.name, BLOCK_ATTRIBUTES, "@@");
    ctx.error(
      "unknown-attribute",
      hint ? `Unknown table attribute "${use.written}".${hint}` : `Unknown table attribute "${use.written}"`,
      use.nameSpan,
    );
    return;
  }
  if (use.name === "primary_key" && facts.primaryKey) {
    ctx.error(
      "duplicate-primary-key",
      `A table has one primary key: "@@primary_key" is already declared at line ${facts.primaryKey.span.line}`,
      use.nameSpan,
    );
    return;
  }
  handler(use, facts, ctx);
}
