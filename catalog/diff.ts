/**
 * The steps that take a database from one catalog to another, in
 * dependency order: new types, new tables, new and changed columns,
 * constraints and indexes, and last what goes away. A step that can lose
 * data is marked destructive and says why; `resc migrate diff` refuses to
 * write such steps unless told to (docs/decisions/1240-migrations.md).
 */
import { quoteIdent } from "../compiler/ident.js";
import { CAPTURE_DDL, captureTrigger } from "../runtime/events/outbox.js";
import { CAPTURE_TRIGGER } from "../runtime/own-objects.js";
import {
  INDEX_HEAD,
  placedKey,
  placedSql,
  type Catalog,
  type CatalogColumn,
  type CatalogConstraint,
  type CatalogIndex,
  type CatalogTable,
  type Placed,
} from "./model.js";

/** One statement of a migration. */
export interface Step {
  sql: string;
  /** Why this step can lose data (or fail on existing rows); absent for a safe step. */
  destructive?: string;
  /**
   * The object of the target this step creates because the source has none: what the presence-only comparison
   * keeps and `render/mismatches.ts` words. Absent for every other step (changes, drops, renames, comments).
   */
  adds?: Missing;
}

/** An object the target has and the source lacks, as the presence-only comparison reports it. */
export type Missing =
  | { kind: "enum"; enum: Placed }
  | { kind: "enum-value"; enum: Placed; value: string }
  | { kind: "domain"; domain: Placed }
  | { kind: "table"; table: Placed }
  | { kind: "column"; table: Placed; column: string }
  | { kind: "index"; table: Placed; columns: readonly string[]; method: string }
  | { kind: "capture"; table: Placed };

/** How {@link diffCatalogs} compares. */
export interface DiffOptions {
  /**
   * Presence only (the live schema check of `resc dev --database-url` and `resc serve`'s /ready): only the steps
   * creating what the target has and the source lacks, so extra objects in the source are fine and what both
   * have is not compared further (types, defaults, constraints). A target object in `public` is found in any
   * namespace of `searchPath` (an unplaced declaration is looked up through the search path), and an index is
   * found by its method and columns, whatever its name, options or uniqueness, a key's index included.
   */
  presence?: { searchPath: readonly string[] };
}

const q = quoteIdent;
const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** Type changes that keep every value: a wider integer, a longer or unbounded string, a wider numeric. */
function widens(from: string, to: string): boolean {
  const ints = ["smallint", "integer", "bigint"];
  if (ints.includes(from) && ints.includes(to)) return ints.indexOf(to) >= ints.indexOf(from);
  if (ints.includes(from) && (to === "numeric" || to === "double precision")) return true;
  const len = (t: string, base: string): number | undefined => {
    const m = new RegExp(`^${base}\\((\\d+)\\)$`).exec(t);
    return m ? Number(m[1]) : undefined;
  };
  if (to === "text" && (/^character varying/.test(from) || from === "character varying")) return true;
  const a = len(from, "character varying");
  const b = len(to, "character varying");
  if (a !== undefined && b !== undefined) return b >= a;
  if (a !== undefined && to === "character varying") return true;
  return false;
}

/** `serial`, `bigserial` or `smallserial`: the spelling that creates a column's owned sequence with it. */
function serialType(type: string): string | undefined {
  return { integer: "serial", bigint: "bigserial", smallint: "smallserial" }[type];
}

function columnDefinition(c: CatalogColumn): string {
  const serial = c.serial !== undefined ? serialType(c.type) : undefined;
  let s = `${q(c.name)} ${serial ?? c.type}`;
  if (c.identity) s += ` GENERATED ${c.identity === "a" ? "ALWAYS" : "BY DEFAULT"} AS IDENTITY`;
  if (c.generated !== undefined) s += ` GENERATED ALWAYS AS (${c.generated}) STORED`;
  if (c.default !== undefined) s += ` DEFAULT ${c.default}`;
  if (c.notNull) s += " NOT NULL";
  return s;
}

const byName = <T extends { name: string }>(xs: readonly T[]): Map<string, T> => new Map(xs.map((x) => [x.name, x]));
/** Types and tables by {@link placedKey}: one name may be used in two namespaces. */
const byPlace = <T extends Placed>(xs: readonly T[]): Map<string, T> => new Map(xs.map((x) => [placedKey(x), x]));

/** Constraints keyed by kind and definition: a renamed constraint with the same meaning is no change. */
const constraintKey = (c: CatalogConstraint): string => `${c.kind}:${c.definition}`;

/** Every sequence of a catalog, by {@link placedKey}: the standalone ones and those serial columns own. */
function allSequences(catalog: Catalog): Set<string> {
  const out = new Set(catalog.sequences.map(placedKey));
  for (const t of catalog.tables)
    for (const c of t.columns) if (c.serial !== undefined) out.add(placedKey(serialOf(t, c.serial)));
  return out;
}

/** A serial column's sequence: in its table's namespace, as PostgreSQL requires of an owned sequence. */
const serialOf = (table: CatalogTable, sequence: string): Placed => ({ schema: table.schema, name: sequence });

/** `SELECT setval(…)` so the sequence's next value follows the column's largest. */
function followMax(sequence: Placed, table: CatalogTable, column: string): string {
  return `SELECT setval(${lit(placedSql(sequence))}, coalesce(max(${q(column)}), 0) + 1, false) FROM ${placedSql(table)};`;
}

/**
 * The steps that change how a column is numbered (identity, serial, or
 * neither) without recreating it, so its values stay: an adopted serial
 * key that becomes an identity, or the reverse, is a change of default and
 * never a dropped column (docs/decisions/1250-sequences.md).
 */
function numberingSteps(table: CatalogTable, from: CatalogColumn, to: CatalogColumn, ctx: DiffContext): Step[] {
  const t = placedSql(table);
  const label = placedKey(table);
  const c = q(to.name);
  const out: Step[] = [];
  if (from.identity && !to.identity) out.push({ sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP IDENTITY;` });
  if (from.serial !== undefined && to.serial === undefined) {
    if (to.default === undefined) out.push({ sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT;` });
    // Still named by a default somewhere: it stays, owned by nothing; otherwise it goes with the numbering.
    const own = serialOf(table, from.serial);
    if (ctx.toSequences.has(placedKey(own))) out.push({ sql: `ALTER SEQUENCE ${placedSql(own)} OWNED BY NONE;` });
    // Dropped at once: an identity added next must not find it through pg_get_serial_sequence.
    else out.push({ sql: `DROP SEQUENCE ${placedSql(own)};` });
  }
  if (to.serial !== undefined && from.serial === undefined) {
    const own = serialOf(table, to.serial);
    if (!ctx.fromSequences.has(placedKey(own))) {
      const as = to.type === "bigint" ? "" : ` AS ${to.type}`;
      out.push({
        sql: `CREATE SEQUENCE ${placedSql(own)}${as} OWNED BY ${t}.${c};`,
      });
      out.push({ sql: followMax(own, table, to.name) });
    } else out.push({ sql: `ALTER SEQUENCE ${placedSql(own)} OWNED BY ${t}.${c};` });
    out.push({
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET DEFAULT nextval(${lit(placedSql(own))}::regclass);`,
    });
  }
  if (to.identity && !from.identity) {
    if (from.default !== undefined && from.serial === undefined)
      out.push({ sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT;` });
    if (!from.notNull)
      out.push({
        sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET NOT NULL;`,
        destructive: `makes ${label}.${to.name} NOT NULL for its identity; fails while a row holds NULL there`,
      });
    out.push({
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} ADD GENERATED ${to.identity === "a" ? "ALWAYS" : "BY DEFAULT"} AS IDENTITY;`,
    });
    out.push({
      sql: `SELECT setval(pg_get_serial_sequence(${lit(t)}, ${lit(to.name)}), coalesce(max(${c}), 0) + 1, false) FROM ${t};`,
    });
  }
  return out;
}

function columnSteps(table: CatalogTable, from: CatalogColumn, to: CatalogColumn, ctx: DiffContext): Step[] {
  const t = placedSql(table);
  const label = placedKey(table);
  const c = q(to.name);
  const out: Step[] = [];
  if (from.generated !== to.generated) {
    out.push({
      sql: `ALTER TABLE ${t} DROP COLUMN ${c};`,
      destructive: `recreates column ${label}.${to.name} (its generated expression changed); its values are lost`,
    });
    out.push({ sql: `ALTER TABLE ${t} ADD COLUMN ${columnDefinition(to)};` });
    return out;
  }
  if (from.type !== to.type) {
    const step: Step = {
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${to.type} USING ${c}::${to.type};`,
    };
    if (!widens(from.type, to.type))
      step.destructive = `changes ${label}.${to.name} from ${from.type} to ${to.type}; values that do not convert make it fail, or are cut`;
    out.push(step);
    if (from.serial !== undefined && to.serial !== undefined)
      out.push({ sql: `ALTER SEQUENCE ${placedSql(serialOf(table, from.serial))} AS ${to.type};` });
  }
  const numbering = numberingSteps(table, from, to, ctx);
  out.push(...numbering);
  if (from.identity && to.identity && from.identity !== to.identity) {
    out.push({
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET GENERATED ${to.identity === "a" ? "ALWAYS" : "BY DEFAULT"};`,
    });
  }
  // A numbering change above already set (or dropped) the default it needs.
  const defaultHandled = numbering.length > 0 && (to.serial !== undefined || to.identity !== undefined);
  if (from.default !== to.default && !defaultHandled && !(from.serial !== undefined && to.default === undefined)) {
    out.push({
      sql:
        to.default === undefined
          ? `ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT;`
          : `ALTER TABLE ${t} ALTER COLUMN ${c} SET DEFAULT ${to.default};`,
    });
  }
  if (from.notNull !== to.notNull && !(to.identity && !from.identity && to.notNull)) {
    out.push(
      to.notNull
        ? {
            sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET NOT NULL;`,
            destructive: `makes ${label}.${to.name} NOT NULL; fails while a row holds NULL there`,
          }
        : { sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP NOT NULL;` },
    );
  }
  return out;
}

function createTable(t: CatalogTable): string {
  const parts = t.columns.map((c) => `  ${columnDefinition(c)}`);
  for (const k of t.constraints.filter((k) => k.kind !== "f")) parts.push(`  CONSTRAINT ${q(k.name)} ${k.definition}`);
  return `CREATE TABLE ${placedSql(t)} (\n${parts.join(",\n")}\n);`;
}

/** The buckets of a diff, in the order they are written, and what every part of it needs to see. */
interface DiffContext {
  early: Step[];
  dropConstraints: Step[];
  tablesNew: Step[];
  columns: Step[];
  addConstraints: Step[];
  addForeign: Step[];
  indexes: Step[];
  late: Step[];
  fromSequences: ReadonlySet<string>;
  toSequences: ReadonlySet<string>;
}

/** New enums and values first; a removed value or type is destructive. */
function enumSteps(from: Catalog, to: Catalog, ctx: DiffContext): void {
  const fromEnums = byPlace(from.enums);
  for (const e of to.enums) {
    const old = fromEnums.get(placedKey(e));
    if (!old) {
      ctx.early.push({
        sql: `CREATE TYPE ${placedSql(e)} AS ENUM (${e.values.map(lit).join(", ")});`,
        adds: { kind: "enum", enum: e },
      });
      continue;
    }
    e.values.forEach((v, i) => {
      if (old.values.includes(v)) return;
      const before = e.values.slice(i + 1).find((x) => old.values.includes(x));
      ctx.early.push({
        sql: `ALTER TYPE ${placedSql(e)} ADD VALUE ${lit(v)}${before !== undefined ? ` BEFORE ${lit(before)}` : ""};`,
        adds: { kind: "enum-value", enum: e, value: v },
      });
    });
    const gone = old.values.filter((v) => !e.values.includes(v));
    if (gone.length > 0) {
      ctx.early.push({
        sql: `-- enum ${placedKey(e)}: PostgreSQL cannot drop the values ${gone.join(", ")}; recreate the type by hand`,
        destructive: `enum ${placedKey(e)} loses the values ${gone.join(", ")}`,
      });
    }
  }
  const toEnums = byPlace(to.enums);
  for (const e of from.enums)
    if (!toEnums.has(placedKey(e)))
      ctx.late.push({
        sql: `DROP TYPE ${placedSql(e)};`,
        destructive: `drops enum type ${placedKey(e)}`,
      });
}

function domainSteps(from: Catalog, to: Catalog, ctx: DiffContext): void {
  const fromDomains = byPlace(from.domains);
  for (const d of to.domains) {
    const old = fromDomains.get(placedKey(d));
    const label = placedKey(d);
    const create = `CREATE DOMAIN ${placedSql(d)} AS ${d.type}${d.default !== undefined ? ` DEFAULT ${d.default}` : ""}${d.notNull ? " NOT NULL" : ""}${d.checks.map((c) => ` ${c}`).join("")};`;
    if (!old) ctx.early.push({ sql: create, adds: { kind: "domain", domain: d } });
    else if (old.type !== d.type) {
      ctx.early.push({
        sql: `-- domain ${label} changes its base type; PostgreSQL cannot alter that in place: recreate it by hand:\n-- ${create}`,
        destructive: `domain ${label} changes from ${old.type} to ${d.type}`,
      });
    } else {
      const n = placedSql(d);
      old.checks.forEach((c, i) => {
        if (!d.checks.includes(c))
          ctx.early.push({
            sql: `ALTER DOMAIN ${n} DROP CONSTRAINT ${q(old.checkNames[i]!)};`,
          });
      });
      for (const c of d.checks.filter((c) => !old.checks.includes(c))) {
        ctx.early.push({
          sql: `ALTER DOMAIN ${n} ADD ${c};`,
          destructive: `adds ${c} to domain ${label}; fails while a stored value breaks it`,
        });
      }
      if (old.default !== d.default)
        ctx.early.push({
          sql:
            d.default === undefined ? `ALTER DOMAIN ${n} DROP DEFAULT;` : `ALTER DOMAIN ${n} SET DEFAULT ${d.default};`,
        });
      if (old.notNull !== d.notNull) {
        ctx.early.push(
          d.notNull
            ? {
                sql: `ALTER DOMAIN ${n} SET NOT NULL;`,
                destructive: `makes domain ${label} NOT NULL; fails while a stored value is NULL`,
              }
            : { sql: `ALTER DOMAIN ${n} DROP NOT NULL;` },
        );
      }
    }
  }
  const toDomains = byPlace(to.domains);
  for (const d of from.domains)
    if (!toDomains.has(placedKey(d)))
      ctx.late.push({
        sql: `DROP DOMAIN ${placedSql(d)};`,
        destructive: `drops domain ${placedKey(d)}`,
      });
}

/**
 * Standalone sequences (those a `nextval` default names): created before
 * any table that uses them, dropped after every column that used them.
 * A serial column's own sequence comes and goes with the column.
 */
function sequenceSteps(from: Catalog, to: Catalog, ctx: DiffContext): void {
  for (const s of to.sequences)
    if (!ctx.fromSequences.has(placedKey(s))) ctx.early.push({ sql: `CREATE SEQUENCE ${placedSql(s)};` });
  for (const s of from.sequences)
    if (!ctx.toSequences.has(placedKey(s))) ctx.late.push({ sql: `DROP SEQUENCE ${placedSql(s)};` });
}

/**
 * Whether adding constraint `k` can fail on rows the table already holds.
 * It cannot when every column it covers is new in this migration and
 * starts out NULL in every row (nullable, no default), or is numbered by
 * a serial or identity (distinct values): a NULL never breaks a unique or
 * a check, nor refers to a missing row (docs/decisions/1240-migrations.md).
 */
function mayFailOnRows(k: CatalogConstraint, added: ReadonlyMap<string, CatalogColumn>): boolean {
  if (k.columns.length === 0) return true;
  return !k.columns.every((name) => {
    const c = added.get(name);
    if (!c) return false;
    const allNull = !c.notNull && c.default === undefined && c.serial === undefined && !c.identity;
    const distinct = (c.serial !== undefined || c.identity !== undefined) && k.kind !== "c" && k.kind !== "f";
    return (allNull && c.generated === undefined) || distinct;
  });
}

function constraintSteps(
  table: CatalogTable,
  old: CatalogTable,
  t: CatalogTable,
  added: ReadonlyMap<string, CatalogColumn>,
  ctx: DiffContext,
): void {
  const oldKeys = new Map(old.constraints.map((k) => [constraintKey(k), k]));
  const newKeys = new Map(t.constraints.map((k) => [constraintKey(k), k]));
  for (const [key, k] of oldKeys) {
    if (!newKeys.has(key))
      ctx.dropConstraints.push({
        sql: `ALTER TABLE ${placedSql(table)} DROP CONSTRAINT ${q(k.name)};`,
      });
  }
  for (const [key, k] of newKeys) {
    if (oldKeys.has(key)) continue;
    const step: Step = {
      sql: `ALTER TABLE ${placedSql(table)} ADD CONSTRAINT ${q(k.name)} ${k.definition};`,
    };
    if (mayFailOnRows(k, added)) {
      step.destructive =
        k.kind === "f"
          ? `adds ${k.definition} to ${placedKey(table)}; fails while a row refers to a missing one`
          : `adds ${k.definition} to ${placedKey(table)}; fails while existing rows break it`;
    }
    (k.kind === "f" ? ctx.addForeign : ctx.addConstraints).push(step);
  }
}

/**
 * Creates index `ix` on `table`. A unique index goes with the constraints, before the foreign keys, which may
 * need it as their target; over existing rows (`added` absent: a new table has none) it may fail like a unique
 * constraint.
 */
function createIndexStep(
  table: CatalogTable,
  ix: CatalogIndex,
  ctx: DiffContext,
  added?: ReadonlyMap<string, CatalogColumn>,
  adds?: Missing,
): void {
  const step: Step = {
    sql: `${ix.definition.replace(INDEX_HEAD, (_all, unique: string | undefined, name: string) => `CREATE ${unique ?? ""}INDEX ${name} ON ${placedSql(table)} `)};`,
  };
  if (adds !== undefined) step.adds = adds;
  if (!ix.unique) {
    ctx.indexes.push(step);
    return;
  }
  const key: CatalogConstraint = { name: ix.name, kind: "u", definition: ix.shape, columns: ix.columns ?? [] };
  if (added !== undefined && mayFailOnRows(key, added))
    step.destructive = `adds unique index ${ix.name} to ${placedKey(table)}; fails while existing rows repeat a value`;
  ctx.addConstraints.push(step);
}

function indexSteps(
  table: CatalogTable,
  old: CatalogTable,
  t: CatalogTable,
  added: ReadonlyMap<string, CatalogColumn>,
  ctx: DiffContext,
): void {
  const oldIx = new Map(old.indexes.map((i) => [i.shape, i]));
  const newIx = new Map(t.indexes.map((i) => [i.shape, i]));
  for (const [shape, i] of oldIx)
    if (!newIx.has(shape)) ctx.indexes.push({ sql: `DROP INDEX ${placedSql({ schema: old.schema, name: i.name })};` });
  for (const [shape, i] of newIx)
    if (!oldIx.has(shape))
      createIndexStep(table, i, ctx, added, { kind: "index", table, columns: i.columns ?? [], method: i.method });
}

/** `COMMENT ON TABLE`, or on column `column` of it: the text, or `NULL` to remove one. */
function commentStep(t: CatalogTable, comment: string | undefined, column?: string): Step {
  const what = column === undefined ? `TABLE ${placedSql(t)}` : `COLUMN ${placedSql(t)}.${q(column)}`;
  return { sql: `COMMENT ON ${what} IS ${comment === undefined ? "NULL" : lit(comment)};` };
}

function newTableSteps(t: CatalogTable, ctx: DiffContext): void {
  ctx.tablesNew.push({ sql: createTable(t), adds: { kind: "table", table: t } });
  if (t.comment !== undefined) ctx.tablesNew.push(commentStep(t, t.comment));
  for (const c of t.columns) if (c.comment !== undefined) ctx.tablesNew.push(commentStep(t, c.comment, c.name));
  for (const k of t.constraints.filter((k) => k.kind === "f"))
    ctx.addForeign.push({
      sql: `ALTER TABLE ${placedSql(t)} ADD CONSTRAINT ${q(k.name)} ${k.definition};`,
    });
  for (const ix of t.indexes) createIndexStep(t, ix, ctx);
}

/** Columns of a kept table: renamed, added, changed, dropped. Returns the columns added. */
function tableColumnSteps(
  old: CatalogTable,
  t: CatalogTable,
  renames: ReadonlyMap<string, string>,
  ctx: DiffContext,
): Map<string, CatalogColumn> {
  const oldCols = byName(old.columns);
  const seen = new Set<string>();
  const added = new Map<string, CatalogColumn>();
  for (const c of t.columns) {
    let prev = oldCols.get(c.name);
    const wasCol = renames.get(`${placedKey(t)}.${c.name}`);
    if (!prev && wasCol !== undefined && oldCols.has(wasCol)) {
      prev = oldCols.get(wasCol)!;
      seen.add(wasCol);
      ctx.columns.push({
        sql: `ALTER TABLE ${placedSql(t)} RENAME COLUMN ${q(wasCol)} TO ${q(c.name)};`,
      });
    }
    if (!prev) {
      const step: Step = {
        sql: `ALTER TABLE ${placedSql(t)} ADD COLUMN ${columnDefinition(c)};`,
        adds: { kind: "column", table: t, column: c.name },
      };
      const filled = c.default !== undefined || c.identity || c.serial !== undefined || c.generated !== undefined;
      if (c.notNull && !filled) {
        step.destructive = `adds NOT NULL column ${placedKey(t)}.${c.name} without a default; fails while the table holds rows`;
      }
      ctx.columns.push(step);
      if (c.comment !== undefined) ctx.columns.push(commentStep(t, c.comment, c.name));
      added.set(c.name, c);
      continue;
    }
    seen.add(c.name);
    ctx.columns.push(...columnSteps(t, { ...prev, name: c.name }, c, ctx));
    if (prev.comment !== c.comment) ctx.columns.push(commentStep(t, c.comment, c.name));
  }
  for (const c of old.columns) {
    if (!seen.has(c.name) && !t.columns.some((x) => x.name === c.name)) {
      ctx.late.push({
        sql: `ALTER TABLE ${placedSql(t)} DROP COLUMN ${q(c.name)};`,
        destructive: `drops column ${placedKey(t)}.${c.name} and its values`,
      });
    }
  }
  return added;
}

/**
 * Extensions first: types, functions and operator classes of theirs may be
 * used by anything after; one the schema no longer needs is left installed,
 * as something outside the schema may use it. Then a namespace the target
 * uses and the source has nothing in; one left empty is never dropped.
 */
function extensionAndNamespaceSteps(from: Catalog, to: Catalog, ctx: DiffContext): void {
  for (const e of to.extensions)
    if (!from.extensions.includes(e)) ctx.early.push({ sql: `CREATE EXTENSION IF NOT EXISTS ${q(e)};` });
  const used = (c: Catalog): Set<string> =>
    new Set([...c.enums, ...c.domains, ...c.tables, ...c.sequences].map((x) => x.schema));
  const had = used(from);
  for (const ns of used(to))
    if (ns !== "public" && !had.has(ns)) ctx.early.push({ sql: `CREATE SCHEMA IF NOT EXISTS ${q(ns)};` });
}

/** Tables: renamed (`@renamed_from`), created, changed (comment, columns, constraints, indexes) and dropped. */
function tableSteps(from: Catalog, to: Catalog, renames: ReadonlyMap<string, string>, ctx: DiffContext): void {
  const fromTables = byPlace(from.tables);
  const renamedTables = new Set<string>();
  for (const t of to.tables) {
    let old = fromTables.get(placedKey(t));
    const wasName = renames.get(placedKey(t));
    const was = wasName !== undefined ? placedKey({ schema: t.schema, name: wasName }) : undefined;
    if (!old && was !== undefined && fromTables.has(was)) {
      old = fromTables.get(was)!;
      renamedTables.add(was);
      ctx.early.push({ sql: `ALTER TABLE ${placedSql(old)} RENAME TO ${q(t.name)};` });
    }
    if (!old) {
      newTableSteps(t, ctx);
      continue;
    }
    if (old.comment !== t.comment) ctx.columns.push(commentStep(t, t.comment));
    const added = tableColumnSteps(old, t, renames, ctx);
    constraintSteps(t, old, t, added, ctx);
    indexSteps(t, old, t, added, ctx);
    if (old.capture !== undefined && old.capture !== t.capture)
      ctx.early.push({ sql: `DROP TRIGGER ${CAPTURE_TRIGGER} ON ${placedSql(old)};` });
  }
  captureSteps(from, to, ctx);
  const toTables = byPlace(to.tables);
  for (const t of from.tables) {
    if (!toTables.has(placedKey(t)) && !renamedTables.has(placedKey(t)))
      ctx.late.unshift({
        sql: `DROP TABLE ${placedSql(t)};`,
        destructive: `drops table ${placedKey(t)} and its rows`,
      });
  }
}

/**
 * The change feed's triggers (docs/decisions/1337-change-feed.md): each
 * table of `to` capturing what its `from` counterpart did not (a new table
 * included) gets the trigger, after the outbox and its function, which are
 * written once, safe to run again. A dropped trigger (in `tableSteps`)
 * loses no rows: the outbox stays, kept for the retention window.
 */
function captureSteps(from: Catalog, to: Catalog, ctx: DiffContext): void {
  const before = byPlace(from.tables);
  const added = to.tables.filter((t) => t.capture !== undefined && before.get(placedKey(t))?.capture !== t.capture);
  if (added.length === 0) return;
  ctx.indexes.push(...CAPTURE_DDL.map((sql) => ({ sql })));
  for (const t of added) {
    const step: Step = { sql: captureTrigger(placedSql(t), lit(t.capture!)) };
    // Missing only on a table the source has without any trigger: a new table is missing as a whole.
    const old = before.get(placedKey(t));
    if (old !== undefined && old.capture === undefined) step.adds = { kind: "capture", table: t };
    ctx.indexes.push(step);
  }
}

/**
 * `catalog` with every index as the presence-only comparison matches it: its method and columns
 * (`USING btree (a, b)`), neither unique nor named; a primary key or unique constraint counts as the btree index
 * backing it.
 */
function presenceShapes(catalog: Catalog): Catalog {
  const shaped = (method: string, columns: readonly string[]): string => `USING ${method} (${columns.join(", ")})`;
  return {
    ...catalog,
    tables: catalog.tables.map((t) => ({
      ...t,
      indexes: [
        ...t.indexes.map((ix) => ({
          ...ix,
          unique: false,
          shape: ix.columns !== undefined ? shaped(ix.method, ix.columns) : ix.shape,
        })),
        ...t.constraints
          .filter((k) => k.kind === "p" || k.kind === "u")
          .map((k) => ({
            name: k.name,
            shape: shaped("btree", k.columns),
            definition: "",
            method: "btree",
            unique: false,
            columns: k.columns,
            partial: false,
          })),
      ],
    })),
  };
}

/**
 * `catalog` as an unplaced name sees it: under `public` (where an unplaced declaration is projected) what the first
 * namespace of `searchPath` holding that name has, as PostgreSQL resolves it; `public`'s own objects only when
 * `public` is on the search path. Other namespaces keep their objects under their own names.
 */
function throughSearchPath(catalog: Catalog, searchPath: readonly string[]): Catalog {
  const visible = <T extends Placed>(xs: readonly T[]): T[] => {
    const out = xs.filter((x) => x.schema !== "public");
    const have = new Set<string>();
    for (const ns of searchPath)
      for (const x of xs)
        if (x.schema === ns && !have.has(x.name)) {
          have.add(x.name);
          out.push(ns === "public" ? x : { ...x, schema: "public" });
        }
    return out;
  };
  return {
    ...catalog,
    enums: visible(catalog.enums),
    domains: visible(catalog.domains),
    tables: visible(catalog.tables),
  };
}

/**
 * The steps from `from` to `to`, in the order of
 * docs/decisions/1240-migrations.md: types and sequences, dropped
 * constraints, new tables, columns, new constraints, foreign keys,
 * indexes, then what goes away.
 * @param renames by database names ({@link placedKey}): `table.column` → the old column name, and `table` → the
 *   old table name (in the same namespace), from `@renamed_from`
 * @param options `presence`: only the steps creating what `from` lacks, each with its {@link Step.adds}
 */
export function diffCatalogs(
  from: Catalog,
  to: Catalog,
  renames: ReadonlyMap<string, string> = new Map(),
  options: DiffOptions = {},
): Step[] {
  if (options.presence !== undefined) {
    const { searchPath } = options.presence;
    return diffCatalogs(throughSearchPath(presenceShapes(from), searchPath), presenceShapes(to)).filter(
      (s) => s.adds !== undefined,
    );
  }
  const ctx: DiffContext = {
    early: [],
    dropConstraints: [],
    tablesNew: [],
    columns: [],
    addConstraints: [],
    addForeign: [],
    indexes: [],
    late: [],
    fromSequences: allSequences(from),
    toSequences: allSequences(to),
  };
  extensionAndNamespaceSteps(from, to, ctx);
  enumSteps(from, to, ctx);
  domainSteps(from, to, ctx);
  sequenceSteps(from, to, ctx);
  const lateSequences = ctx.late.splice(0);

  tableSteps(from, to, renames, ctx);
  return [
    ...ctx.early,
    ...ctx.dropConstraints,
    ...ctx.tablesNew,
    ...ctx.columns,
    ...ctx.addConstraints,
    ...ctx.addForeign,
    ...ctx.indexes,
    ...ctx.late,
    ...lateSequences,
  ];
}
