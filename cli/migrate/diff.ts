/**
 * The steps that take a database from one catalog to another, in
 * dependency order: new types, new tables, new and changed columns,
 * constraints and indexes, and last what goes away. A step that can lose
 * data is marked destructive and says why; `resc migrate diff` refuses to
 * write such steps unless told to (docs/decisions/1240-migrations.md).
 */
import { quoteIdent } from "../../compiler/ident.js";
import type { Catalog, CatalogColumn, CatalogConstraint, CatalogTable } from "./catalog.js";

/** One statement of a migration. */
export interface Step {
  sql: string;
  /** Why this step can lose data (or fail on existing rows); absent for a safe step. */
  destructive?: string;
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

function columnDefinition(c: CatalogColumn): string {
  let s = `${q(c.name)} ${c.type}`;
  if (c.identity) s += ` GENERATED ${c.identity === "a" ? "ALWAYS" : "BY DEFAULT"} AS IDENTITY`;
  if (c.generated !== undefined) s += ` GENERATED ALWAYS AS (${c.generated}) STORED`;
  if (c.default !== undefined) s += ` DEFAULT ${c.default}`;
  if (c.notNull) s += " NOT NULL";
  return s;
}

const byName = <T extends { name: string }>(xs: readonly T[]): Map<string, T> => new Map(xs.map((x) => [x.name, x]));

/** Constraints keyed by kind and definition: a renamed constraint with the same meaning is no change. */
const constraintKey = (c: CatalogConstraint): string => `${c.kind}:${c.definition}`;

function columnSteps(table: string, from: CatalogColumn, to: CatalogColumn): Step[] {
  const t = q(table);
  const c = q(to.name);
  const out: Step[] = [];
  if (from.generated !== to.generated || Boolean(from.identity) !== Boolean(to.identity)) {
    out.push({
      sql: `ALTER TABLE ${t} DROP COLUMN ${c};`,
      destructive: `recreates column ${table}.${to.name} (identity or generated expression changed); its values are lost`,
    });
    out.push({ sql: `ALTER TABLE ${t} ADD COLUMN ${columnDefinition(to)};` });
    return out;
  }
  if (from.type !== to.type) {
    const step: Step = { sql: `ALTER TABLE ${t} ALTER COLUMN ${c} TYPE ${to.type} USING ${c}::${to.type};` };
    if (!widens(from.type, to.type))
      step.destructive = `changes ${table}.${to.name} from ${from.type} to ${to.type}; values that do not convert make it fail, or are cut`;
    out.push(step);
  }
  if (from.identity && to.identity && from.identity !== to.identity) {
    out.push({
      sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET GENERATED ${to.identity === "a" ? "ALWAYS" : "BY DEFAULT"};`,
    });
  }
  if (from.default !== to.default) {
    out.push({
      sql:
        to.default === undefined
          ? `ALTER TABLE ${t} ALTER COLUMN ${c} DROP DEFAULT;`
          : `ALTER TABLE ${t} ALTER COLUMN ${c} SET DEFAULT ${to.default};`,
    });
  }
  if (from.notNull !== to.notNull) {
    out.push(
      to.notNull
        ? {
            sql: `ALTER TABLE ${t} ALTER COLUMN ${c} SET NOT NULL;`,
            destructive: `makes ${table}.${to.name} NOT NULL; fails while a row holds NULL there`,
          }
        : { sql: `ALTER TABLE ${t} ALTER COLUMN ${c} DROP NOT NULL;` },
    );
  }
  return out;
}

function createTable(t: CatalogTable): string {
  const parts = t.columns.map((c) => `  ${columnDefinition(c)}`);
  for (const k of t.constraints.filter((k) => k.kind !== "f")) parts.push(`  CONSTRAINT ${q(k.name)} ${k.definition}`);
  return `CREATE TABLE ${q(t.name)} (\n${parts.join(",\n")}\n);`;
}

/**
 * The steps from `from` to `to`.
 * @param renames `table.column` → the old column name, and `table` → the old table name, from `@renamed_from`
 */
export function diffCatalogs(from: Catalog, to: Catalog, renames: ReadonlyMap<string, string> = new Map()): Step[] {
  const early: Step[] = [];
  const tablesNew: Step[] = [];
  const columns: Step[] = [];
  const dropConstraints: Step[] = [];
  const addConstraints: Step[] = [];
  const addForeign: Step[] = [];
  const indexes: Step[] = [];
  const late: Step[] = [];

  // Enums: new types first; new values appended; a removed value or type is destructive.
  const fromEnums = byName(from.enums);
  for (const e of to.enums) {
    const old = fromEnums.get(e.name);
    if (!old) {
      early.push({ sql: `CREATE TYPE ${q(e.name)} AS ENUM (${e.values.map(lit).join(", ")});` });
      continue;
    }
    e.values.forEach((v, i) => {
      if (old.values.includes(v)) return;
      const before = e.values.slice(i + 1).find((x) => old.values.includes(x));
      early.push({
        sql: `ALTER TYPE ${q(e.name)} ADD VALUE ${lit(v)}${before !== undefined ? ` BEFORE ${lit(before)}` : ""};`,
      });
    });
    const gone = old.values.filter((v) => !e.values.includes(v));
    if (gone.length > 0) {
      early.push({
        sql: `-- enum ${e.name}: PostgreSQL cannot drop the values ${gone.join(", ")}; recreate the type by hand`,
        destructive: `enum ${e.name} loses the values ${gone.join(", ")}`,
      });
    }
  }
  const toEnums = byName(to.enums);
  for (const e of from.enums)
    if (!toEnums.has(e.name)) late.push({ sql: `DROP TYPE ${q(e.name)};`, destructive: `drops enum type ${e.name}` });

  const fromDomains = byName(from.domains);
  for (const d of to.domains) {
    const old = fromDomains.get(d.name);
    const create = `CREATE DOMAIN ${q(d.name)} AS ${d.type}${d.default !== undefined ? ` DEFAULT ${d.default}` : ""}${d.notNull ? " NOT NULL" : ""}${d.checks.map((c) => ` ${c}`).join("")};`;
    if (!old) early.push({ sql: create });
    else if (old.type !== d.type) {
      early.push({
        sql: `-- domain ${d.name} changes its base type; PostgreSQL cannot alter that in place: recreate it by hand:\n-- ${create}`,
        destructive: `domain ${d.name} changes from ${old.type} to ${d.type}`,
      });
    } else {
      const n = q(d.name);
      old.checks.forEach((c, i) => {
        if (!d.checks.includes(c)) early.push({ sql: `ALTER DOMAIN ${n} DROP CONSTRAINT ${q(old.checkNames[i]!)};` });
      });
      for (const c of d.checks.filter((c) => !old.checks.includes(c))) {
        early.push({
          sql: `ALTER DOMAIN ${n} ADD ${c};`,
          destructive: `adds ${c} to domain ${d.name}; fails while a stored value breaks it`,
        });
      }
      if (old.default !== d.default)
        early.push({
          sql:
            d.default === undefined ? `ALTER DOMAIN ${n} DROP DEFAULT;` : `ALTER DOMAIN ${n} SET DEFAULT ${d.default};`,
        });
      if (old.notNull !== d.notNull) {
        early.push(
          d.notNull
            ? {
                sql: `ALTER DOMAIN ${n} SET NOT NULL;`,
                destructive: `makes domain ${d.name} NOT NULL; fails while a stored value is NULL`,
              }
            : { sql: `ALTER DOMAIN ${n} DROP NOT NULL;` },
        );
      }
    }
  }
  const toDomains = byName(to.domains);
  for (const d of from.domains)
    if (!toDomains.has(d.name)) late.push({ sql: `DROP DOMAIN ${q(d.name)};`, destructive: `drops domain ${d.name}` });

  const fromTables = byName(from.tables);
  const renamedTables = new Set<string>();
  for (const t of to.tables) {
    let old = fromTables.get(t.name);
    const was = renames.get(t.name);
    if (!old && was !== undefined && fromTables.has(was)) {
      old = fromTables.get(was)!;
      renamedTables.add(was);
      early.push({ sql: `ALTER TABLE ${q(was)} RENAME TO ${q(t.name)};` });
    }
    if (!old) {
      tablesNew.push({ sql: createTable(t) });
      for (const k of t.constraints.filter((k) => k.kind === "f"))
        addForeign.push({ sql: `ALTER TABLE ${q(t.name)} ADD CONSTRAINT ${q(k.name)} ${k.definition};` });
      for (const ix of t.indexes)
        indexes.push({ sql: `${ix.definition.replace(/ ON (ONLY )?\S+ /, ` ON ${q(t.name)} `)};` });
      continue;
    }
    const oldCols = byName(old.columns);
    const seen = new Set<string>();
    for (const c of t.columns) {
      let prev = oldCols.get(c.name);
      const wasCol = renames.get(`${t.name}.${c.name}`);
      if (!prev && wasCol !== undefined && oldCols.has(wasCol)) {
        prev = oldCols.get(wasCol)!;
        seen.add(wasCol);
        columns.push({ sql: `ALTER TABLE ${q(t.name)} RENAME COLUMN ${q(wasCol)} TO ${q(c.name)};` });
      }
      if (!prev) {
        const step: Step = { sql: `ALTER TABLE ${q(t.name)} ADD COLUMN ${columnDefinition(c)};` };
        if (c.notNull && c.default === undefined && !c.identity && c.generated === undefined) {
          step.destructive = `adds NOT NULL column ${t.name}.${c.name} without a default; fails while the table holds rows`;
        }
        columns.push(step);
        continue;
      }
      seen.add(c.name);
      columns.push(...columnSteps(t.name, { ...prev, name: c.name }, c));
    }
    for (const c of old.columns) {
      if (!seen.has(c.name) && !t.columns.some((x) => x.name === c.name)) {
        late.push({
          sql: `ALTER TABLE ${q(t.name)} DROP COLUMN ${q(c.name)};`,
          destructive: `drops column ${t.name}.${c.name} and its values`,
        });
      }
    }
    const oldKeys = new Map(old.constraints.map((k) => [constraintKey(k), k]));
    const newKeys = new Map(t.constraints.map((k) => [constraintKey(k), k]));
    for (const [key, k] of oldKeys) {
      if (!newKeys.has(key)) dropConstraints.push({ sql: `ALTER TABLE ${q(t.name)} DROP CONSTRAINT ${q(k.name)};` });
    }
    for (const [key, k] of newKeys) {
      if (oldKeys.has(key)) continue;
      const step: Step = { sql: `ALTER TABLE ${q(t.name)} ADD CONSTRAINT ${q(k.name)} ${k.definition};` };
      if (k.kind !== "f") step.destructive = `adds ${k.definition} to ${t.name}; fails while existing rows break it`;
      (k.kind === "f" ? addForeign : addConstraints).push(step);
    }
    const oldIx = new Map(old.indexes.map((i) => [i.shape, i]));
    const newIx = new Map(t.indexes.map((i) => [i.shape, i]));
    for (const [shape, i] of oldIx) if (!newIx.has(shape)) indexes.push({ sql: `DROP INDEX ${q(i.name)};` });
    for (const [shape, i] of newIx)
      if (!oldIx.has(shape)) indexes.push({ sql: `${i.definition.replace(/ ON (ONLY )?\S+ /, ` ON ${q(t.name)} `)};` });
  }
  const toTables = byName(to.tables);
  for (const t of from.tables) {
    if (!toTables.has(t.name) && !renamedTables.has(t.name))
      late.unshift({ sql: `DROP TABLE ${q(t.name)};`, destructive: `drops table ${t.name} and its rows` });
  }
  return [
    ...early,
    ...dropConstraints,
    ...tablesNew,
    ...columns,
    ...addConstraints,
    ...addForeign,
    ...indexes,
    ...late,
  ];
}
