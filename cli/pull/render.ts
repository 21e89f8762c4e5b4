/**
 * A catalog as `.resource` text (`resc pull`, issue #11 §2): enums,
 * domains with their checks, tables with types, nullability, defaults,
 * keys, references (relation and inverse names from the column names),
 * checks and indexes, and a read-only resource per table. What the
 * language cannot say is left out with a `//` comment naming it and why,
 * and listed for stderr (docs/decisions/1200-pull.md).
 */
import { lookupBuiltin } from "../../compiler/pgtypes.js";
import type { Catalog, CatalogColumn, CatalogConstraint, CatalogIndex, CatalogTable } from "../migrate/catalog.js";
import { secretReason } from "./secrets.js";

/** Objects of the database the catalog does not hold but `pull` reports as left out. */
export interface Extras {
  views: string[];
  triggers: string[];
  functions: number;
  /** The namespace described (default `public`): a reference to a table of another one is left out. */
  schema?: string;
  /**
   * Tables to leave out whole, with why: `resc pull` re-renders without a
   * table whose declaration the compiler refused, so the file it writes
   * always compiles.
   */
  exclude?: ReadonlyMap<string, string>;
}

/** The text and what was left out. */
export interface Rendered {
  text: string;
  leftOut: string[];
}

const IDENT = /^[a-z_][a-z0-9_]*$/;
const KEYWORDS = new Set(["api", "generate", "enum", "domain", "table", "resource", "security"]);
/** Nullable time columns whose non-null value marks a row removed (Rails' paranoia and discard, Laravel, Django). */
const SOFT_DELETE = /^(deleted|removed|discarded|trashed)_(at|on|date|time)$/;
/** Boolean flags that mark a row removed: not a `@soft_delete` (their value is never null), so the table is scoped. */
const DELETED_FLAG = /^(is_)?(deleted|removed|discarded|trashed)$/;

/**
 * Whether `s` can name a table or a column as written: plain lowercase. The language's keywords are names there
 * (`table resource { domain text? }` parses), so a column named `table` or `domain` is pulled.
 */
export const ident = (s: string): boolean => IDENT.test(s);
/** Whether `s` can name an enum or a domain: plain lowercase and no keyword, since a column's type is read there. */
export const typeIdent = (s: string): boolean => IDENT.test(s) && !KEYWORDS.has(s);
/** Enum values may be any identifier, upper case included (`G`, `PG`); others are quoted. */
const bareValue = (s: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !KEYWORDS.has(s);
const str = (s: string): string => JSON.stringify(s);

/** `CHECK ((x > 0))` → `(x > 0)`: the condition `@check` takes. */
function checkCondition(def: string): string {
  return def.replace(/^CHECK \((.*)\)$/s, "$1");
}

/** The language's spelling of a catalog type, or undefined when it has none. */
export function resourceType(formatted: string, userTypes: ReadonlySet<string>): string | undefined {
  let t = formatted;
  let arr = "";
  while (t.endsWith("[]")) {
    arr += "[]";
    t = t.slice(0, -2);
  }
  if (userTypes.has(t)) return typeIdent(t) ? t + arr : undefined;
  const tz = /^(timestamp|time)(\(\d+\))? with(out)? time zone$/.exec(t);
  if (tz) return `${tz[1]}${tz[3] ? "" : "tz"}${tz[2] ?? ""}${arr}`;
  const m = /^([a-z ]+?)(\([0-9, ]*\))?$/.exec(t);
  if (!m) return undefined;
  const b = lookupBuiltin(m[1]!);
  if (!b) return undefined;
  const name = b.name === "double precision" ? "float8" : b.name;
  return `${name}${b.takesModifiers && m[2] ? m[2].replace(/\s+/g, "") : ""}${arr}`;
}

/** The serial type of each integer type: a column numbered from the sequence it owns. */
const SERIAL_OF: Readonly<Record<string, string>> = { smallint: "smallserial", integer: "serial", bigint: "bigserial" };

/** `@default(…)` for a catalog default, or undefined for none. */
function defaultAttr(c: CatalogColumn, enumValues: ReadonlyMap<string, string[]>): string | undefined {
  if (c.identity) return "@default(identity)";
  const d = c.default;
  if (d === undefined) return undefined;
  // A nextval on a sequence the column does not own stays that sequence (a serial column has no
  // default here: its type says it, docs/decisions/1250-sequences.md); it falls through to sql(…).
  if (/^-?\d+(\.\d+)?$/.test(d) || d === "true" || d === "false") return `@default(${d})`;
  if (/^\(?-\d+(\.\d+)?\)?$/.test(d)) return `@default(${d.replace(/[()]/g, "")})`;
  if (d === "NULL") return undefined;
  if (/^[a-z_][a-z0-9_]*\(\)$/.test(d)) return `@default(${d})`;
  const lit = /^'((?:[^']|'')*)'::(.+)$/.exec(d);
  if (lit) {
    const value = lit[1]!.replace(/''/g, "'");
    const type = lit[2]!;
    if (enumValues.has(type)) return bareValue(value) ? `@default(${value})` : `@default(${str(value)})`;
    if (["text", "character varying", "bpchar"].includes(type) || /^character/.test(type))
      return `@default(${str(value)})`;
  }
  return `@default(sql(${str(d)}))`;
}

/** A relation name from a referencing column: `language_id` → `language`; otherwise `<column>_ref`. */
function relationName(column: string): string {
  const base = column.replace(/_id$/, "");
  return base !== column && base !== "" ? base : `${column}_ref`;
}

interface TableShape {
  table: CatalogTable;
  primaryKey: string[];
  /** Columns whose single-column index (or key) makes filtering and sorting cheap. */
  indexedFirst: Set<string>;
  gin: Set<string>;
}

function shapeOf(t: CatalogTable): TableShape {
  const pk = t.constraints.find((k) => k.kind === "p")?.columns ?? [];
  const indexedFirst = new Set<string>();
  const gin = new Set<string>();
  for (const k of t.constraints)
    if ((k.kind === "p" || k.kind === "u" || k.kind === "f") && k.columns[0]) indexedFirst.add(k.columns[0]);
  for (const ix of t.indexes) {
    if (!ix.columns || ix.partial) continue;
    if (ix.method === "btree") indexedFirst.add(ix.columns[0]!);
    if (ix.method === "gin" && ix.columns.length === 1) gin.add(ix.columns[0]!);
  }
  return { table: t, primaryKey: pk, indexedFirst, gin };
}

/**
 * Renders `catalog` (read from namespace `schema`) as `.resource` text,
 * not yet formatted.
 */
export function renderCatalog(catalog: Catalog, extras: Extras): Rendered {
  const leftOut: string[] = [];
  const out: string[] = [];
  const skip = (what: string, why: string): void => {
    leftOut.push(`${what}: ${why}`);
    out.push(`// left out: ${what}: ${why}`);
  };
  const enumValues = new Map(catalog.enums.map((e) => [e.name, e.values]));
  const userTypes = new Set([...catalog.enums.map((e) => e.name), ...catalog.domains.map((d) => d.name)]);
  const tableNames = new Set(catalog.tables.map((t) => t.name).filter((n) => ident(n) && !extras.exclude?.has(n)));

  for (const v of extras.views) skip(`view ${v}`, "the language describes tables only");
  for (const tr of extras.triggers)
    skip(`trigger ${tr}`, "triggers are the database's own behaviour; they keep running");
  if (extras.functions > 0)
    skip(`${extras.functions} function(s)`, "functions are not described; defaults and checks may still call them");
  if (out.length > 0) out.push("");

  for (const e of catalog.enums) {
    if (!typeIdent(e.name)) {
      skip(`enum ${e.name}`, "its name is not a plain lowercase identifier");
      continue;
    }
    out.push(`enum ${e.name} { ${e.values.map((v) => (bareValue(v) ? v : str(v))).join(" ")} }`, "");
  }
  for (const d of catalog.domains) {
    const base = resourceType(d.type, userTypes);
    if (!typeIdent(d.name) || base === undefined) {
      skip(
        `domain ${d.name}`,
        base === undefined
          ? `its base type ${d.type} has no spelling in the language`
          : "its name is not a plain lowercase identifier",
      );
      continue;
    }
    const checks = d.checks.map((c) => ` @check(${str(checkCondition(c))})`).join("");
    out.push(`domain ${d.name} ${base}${checks}`, "");
  }

  // Inverse names per target table, unique within it.
  const inverseNames = new Map<string, Set<string>>();
  const inverseOf = (fk: CatalogConstraint, from: string): string => {
    const target = fk.references!.table;
    const used =
      inverseNames.get(target) ?? new Set(catalog.tables.find((t) => t.name === target)?.columns.map((c) => c.name));
    inverseNames.set(target, used);
    let name = used.has(from) ? `${from}_by_${relationName(fk.columns[0]!)}` : from;
    for (let n = 2; used.has(name); n++) name = `${from}_${n}`;
    used.add(name);
    return name;
  };

  const home = extras.schema ?? "public";
  for (const t of catalog.tables) {
    if (!ident(t.name)) {
      skip(`table ${t.name}`, "its name is not a plain lowercase identifier");
      continue;
    }
    const excluded = extras.exclude?.get(t.name);
    if (excluded !== undefined) {
      skip(`table ${t.name}`, excluded);
      continue;
    }
    const s = shapeOf(t);
    const body: string[] = [];
    const kept = new Set<string>();
    const relations = new Set<string>(t.columns.map((c) => c.name));
    for (const c of t.columns) {
      const written = resourceType(c.type, userTypes);
      // A column that owns the sequence it is numbered from is what `serial` makes (decision 1250).
      const serial = c.serial !== undefined ? SERIAL_OF[c.type] : undefined;
      const type = serial ?? written;
      if (!ident(c.name) || type === undefined || c.generated !== undefined) {
        const why =
          c.generated !== undefined
            ? "a generated column; the language cannot declare one (it stays in the database)"
            : type === undefined
              ? `its type ${c.type} has no spelling in the language`
              : "its name is not a plain lowercase identifier";
        body.push(`  // left out: column ${c.name} (${c.type}): ${why}`);
        leftOut.push(`column ${t.name}.${c.name}: ${why}`);
        continue;
      }
      kept.add(c.name);
      const attrs: string[] = [];
      if (s.primaryKey.length === 1 && s.primaryKey[0] === c.name) attrs.push("@primary_key");
      const def = defaultAttr(c, enumValues);
      if (def) attrs.push(def);
      if (t.constraints.some((k) => k.kind === "u" && k.columns.length === 1 && k.columns[0] === c.name))
        attrs.push("@unique");
      const fk = t.constraints.find((k) => k.kind === "f" && k.columns.length === 1 && k.columns[0] === c.name);
      // A reference is bound to the table it names in its own schema, never rebound by name to one in this schema.
      const elsewhere = fk?.references !== undefined && fk.references.schema !== home;
      if (fk && fk.references && !elsewhere && tableNames.has(fk.references.table)) {
        let rel = relationName(c.name);
        while (relations.has(rel)) rel = `${rel}_ref`;
        relations.add(rel);
        const target = catalog.tables.find((x) => x.name === fk.references!.table)!;
        const targetPk = target.constraints.find((k) => k.kind === "p")?.columns ?? [];
        const column =
          targetPk.length === 1 && targetPk[0] === fk.references.columns[0]
            ? ""
            : `, column: ${fk.references.columns[0]}`;
        attrs.push(`@ref(${rel}, ${fk.references.table}${column})`);
        attrs.push(`@inverse(${inverseOf(fk, t.name)})`);
      }
      // One @check per column: the language says it once; a second check on the column is left out, named.
      const checks = t.constraints.filter((k) => k.kind === "c" && k.columns[0] === c.name);
      if (checks[0]) attrs.push(`@check(${str(checkCondition(checks[0].definition))})`);
      for (const k of checks.slice(1)) {
        body.push(
          `  // left out: check ${k.name} ${k.definition}: the column has a check already (one @check per column)`,
        );
        leftOut.push(`check ${t.name}.${k.name}: the column ${c.name} has a check already (one @check per column)`);
      }
      const role = { key: s.primaryKey.includes(c.name), reference: fk !== undefined };
      // Keys and references are ids, never secrets; and a hidden key could not be served at all.
      const secret = role.key || role.reference ? undefined : secretReason(t.name, c, role);
      const softDelete = !c.notNull && SOFT_DELETE.test(c.name) && /^(timestamp|date)/.test(c.type);
      if (softDelete) {
        body.push("  // a soft delete: served only once a BeforeQuery hook confines the table (spec: SoftDelete)");
        attrs.push("@soft_delete", "@hidden");
      } else if (secret !== undefined) {
        body.push(`  // hidden by resc pull: ${secret}; remove @hidden to serve it`);
        attrs.push("@hidden");
      } else {
        const array = type.endsWith("[]");
        const doc = type.startsWith("json");
        if (s.indexedFirst.has(c.name) && !array && !doc) attrs.push("@filterable", "@sortable");
        else if (s.gin.has(c.name) && (array || type.startsWith("jsonb"))) attrs.push("@filterable");
      }
      body.push(`  ${c.name} ${type}${c.notNull ? "" : "?"} ${attrs.join(" ")}`.trimEnd());
    }
    const blockAttrs: string[] = [];
    const keyKept = s.primaryKey.length > 0 && s.primaryKey.every((c) => kept.has(c));
    if (s.primaryKey.length > 1 && keyKept) blockAttrs.push(`  @@primary_key([${s.primaryKey.join(", ")}])`);
    for (const k of t.constraints) {
      if (k.kind === "u" && k.columns.length > 1 && k.columns.every((c) => kept.has(c)))
        blockAttrs.push(`  @@unique([${k.columns.join(", ")}])`);
      const other = k.references !== undefined && k.references.schema !== home;
      if (k.kind === "f" && (k.columns.length > 1 || other || !tableNames.has(k.references?.table ?? ""))) {
        const why = other
          ? `it refers to ${k.references!.schema}.${k.references!.table}, a table of another schema; a reference is never rebound to a table of this one by name`
          : "only single-column references to described tables are expressible";
        blockAttrs.push(`  // left out: foreign key ${k.name} ${k.definition}: ${why}`);
        leftOut.push(`foreign key ${t.name}.${k.name}: ${why}`);
      }
      if (k.kind === "c" && k.columns.length === 0) {
        blockAttrs.push(`  // left out: check ${k.name} ${k.definition}: it names no column`);
        leftOut.push(`check ${t.name}.${k.name}: it names no column`);
      }
    }
    for (const ix of t.indexes) blockAttrs.push(indexAttr(t, ix, kept, leftOut));
    const flag = t.columns.find((c) => c.type === "boolean" && DELETED_FLAG.test(c.name));
    if (flag) {
      blockAttrs.push(
        `  @@scoped  // ${flag.name} marks removed rows: served only once a BeforeQuery hook leaves them out`,
      );
    }
    out.push(`table ${t.name} {`, ...body);
    if (blockAttrs.length > 0) out.push("", ...blockAttrs);
    if (keyKept) {
      out.push("", `  resource "/${t.name}" { ops = [${s.primaryKey.length === 1 ? "reads" : "list"}] }`);
    } else {
      // The spec serves a table by its key: without one (or with a key column left out) it is described, not served.
      const why = s.primaryKey.length === 0 ? "it has no primary key" : "a column of its primary key is left out";
      out.push("", `  // not served: ${why}`);
      leftOut.push(`resource for table ${t.name}: ${why}`);
    }
    out.push("}", "");
  }
  return { text: out.join("\n"), leftOut };
}

function indexAttr(t: CatalogTable, ix: CatalogIndex, kept: ReadonlySet<string>, leftOut: string[]): string {
  const why = !ix.columns
    ? "it indexes an expression"
    : ix.partial
      ? "it is partial (WHERE)"
      : ix.columns.some((c) => !kept.has(c))
        ? "it covers a column left out"
        : undefined;
  if (why) {
    leftOut.push(`index ${t.name}.${ix.name}: ${why}`);
    return `  // left out: index ${ix.name}: ${why}`;
  }
  const args = [`[${ix.columns!.join(", ")}]`];
  if (ix.method !== "btree") args.push(`using: ${ix.method}`);
  if (ix.unique) args.push("unique: true");
  args.push(`name: ${str(ix.name)}`);
  return `  @@index(${args.join(", ")})`;
}
