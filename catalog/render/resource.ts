/**
 * A catalog as `.resource` text (`resc pull`): enums, domains with their
 * checks, tables with types, nullability, defaults, keys, references
 * (relation and inverse names from the column names), checks and indexes,
 * and a read-only resource per table. Names the language cannot write as
 * they are get a plain name and keep theirs with `@map`/`@@map`; tables of
 * a namespace other than `public` say it with `@@schema`
 * (docs/decisions/1257-database-names.md). What the language cannot say is
 * left out with a `//` comment naming it and why, and listed for stderr
 * (docs/decisions/1200-pull.md).
 */
import {
  placedKey,
  unwritableIndex,
  writableUnique,
  type Catalog,
  type CatalogColumn,
  type CatalogConstraint,
  type CatalogDomain,
  type CatalogIndex,
  type CatalogTable,
  type Placed,
} from "../model.js";
import { extensionsUsed } from "../../compiler/backends/sql/extensions.js";
import { bareValue, nameBook, resourceType, type NameBook } from "../naming.js";
import { credentialColumns } from "./secrets.js";
import { policyReport, type PulledPolicy, type PulledRowSecurity } from "./policies.js";
import { RESERVED_PARAMETERS } from "../../runtime/query/parameters.js";

/** Objects of the database the catalog does not hold but `pull` reports as left out. */
export interface Extras {
  views: string[];
  triggers: string[];
  functions: number;
  /** The namespaces described (default `public`): a reference to a table of another one is left out. */
  schemas?: readonly string[];
  /**
   * The tables whose row-level security is on, and their policies (`pg_policies`): reported, never
   * described, since the database keeps enforcing them (docs/decisions/1368-database-row-level-security.md).
   */
  rowSecurity?: readonly PulledRowSecurity[];
  policies?: readonly PulledPolicy[];
  /**
   * Tables to leave out whole, with why: `resc pull` re-renders without a
   * table whose declaration the compiler refused, so the file it writes
   * always compiles.
   */
  exclude?: ReadonlyMap<string, string>;
}

/** The text, what was left out, and warnings on what was written (a hidden column a create would need). */
export interface Rendered {
  text: string;
  leftOut: string[];
  warnings: string[];
}

/**
 * Column names (the language's spelling, so `"deletedAt"` is `deleted_at`) whose set value marks a row removed:
 * Rails' paranoia and discard, Laravel, Sequelize, TypeORM, GORM, and Prisma applications by hand. `archived_at`
 * is not one: an archived row is still the application's (docs/decisions/1369-pulled-soft-delete.md).
 */
const SOFT_DELETE = /^(deleted|removed|discarded|trashed)_(at|on|date|time)$/;
/** Boolean flags that mark a row removed: not a `@soft_delete` (their value is never null), so the table is scoped. */
const DELETED_FLAG = /^(is_)?(deleted|removed|discarded|trashed)$/;
/** The types a `@soft_delete` column may have (docs/decisions/0207-soft-delete-column.md), as `format_type` spells them. */
const MARKER_TYPE = /^timestamp(\(\d+\))? with(out)? time zone$/;

/**
 * What a column named like a removal mark is to its pulled table (docs/decisions/1369-pulled-soft-delete.md):
 * `soft-delete`, the table's `@soft_delete`; `scope`, a mark resc cannot apply itself (a date, a second marker), so
 * the table is `@@scoped`; `plain`, not read as a mark (every row, or every new row, carries a value, or its type
 * is neither a timestamp nor a date), said with a comment.
 */
type RemovalMark = { kind: "soft-delete" } | { kind: "scope" } | { kind: "plain"; why: string };

/**
 * Whether column `c` (language name `name`) marks its row removed, by the rules of
 * docs/decisions/1369-pulled-soft-delete.md; `marked` says the table has its `@soft_delete` already.
 * @returns undefined when its name is not a removal mark's, or it is a key or a reference
 */
function removalMark(
  c: CatalogColumn,
  name: string,
  domains: ReadonlyMap<string, CatalogDomain>,
  role: { key: boolean; reference: boolean },
  marked: boolean,
): RemovalMark | undefined {
  if (!SOFT_DELETE.test(name) || role.key || role.reference) return undefined;
  const domain = domains.get(c.type);
  const type = domain?.type ?? c.type;
  if (c.notNull || domain?.notNull) return { kind: "plain", why: "it is NOT NULL, so every row carries a value" };
  const fallback = c.default ?? domain?.default;
  if (fallback !== undefined && fallback !== "NULL")
    return { kind: "plain", why: `its default ${fallback} gives every new row a value` };
  if (MARKER_TYPE.test(type)) return marked ? { kind: "scope" } : { kind: "soft-delete" };
  // A day is a removal mark too, but `@soft_delete` takes a timestamp; any other type is not read as one.
  return type === "date" ? { kind: "scope" } : { kind: "plain", why: `a ${type} column is not read as a removal mark` };
}

const str = (s: string): string => JSON.stringify(s);

/**
 * A `COMMENT ON` text as doc comments (`/// …`, a line each), shown in the OpenAPI description and the CLI's help
 * (docs/language.md, Comments and doc comments).
 */
function docLines(comment: string, indent: string): string[] {
  return comment
    .trim()
    .split(/\r?\n/)
    .map((l) => `${indent}/// ${l.trimEnd()}`.trimEnd());
}

/** `CHECK ((x > 0))` → `(x > 0)`: the condition `@check` takes. */
function checkCondition(def: string): string {
  return def.replace(/^CHECK \((.*)\)$/s, "$1");
}

/** ` @map("Db")` when the database name differs from the language name, and ` @schema("ns")` outside `public`. */
function placement(x: Placed, name: string, block: "@" | "@@"): string[] {
  const out: string[] = [];
  if (x.name !== name) out.push(`${block}map(${str(x.name)})`);
  if (x.schema !== "public") out.push(`${block}schema(${str(x.schema)})`);
  return out;
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
  // A number the language reads back as written (`0`, `1.5`); `0.00` would come back `0`, so it stays SQL.
  const number = d.replace(/^\((-.*)\)$/, "$1");
  if (/^-?\d+(\.\d+)?$/.test(number) && String(Number(number)) === number) return `@default(${number})`;
  if (d === "true" || d === "false") return `@default(${d})`;
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
  /**
   * Without a PRIMARY KEY constraint, the unique index over NOT NULL columns that serves as the key
   * (`@@primary_key([a, b], index: "name")`, a Prisma many-to-many table; docs/decisions/1376-composite-key-address.md).
   */
  keyIndex?: string;
  /** Columns whose single-column index (or key) makes filtering and sorting cheap. */
  indexedFirst: Set<string>;
  gin: Set<string>;
}

/**
 * @param credentials the columns judged credentials when none is taken for a key: a unique index over one of them
 *   never becomes the table's key, which would put the credential in every item's address
 */
function shapeOf(t: CatalogTable, credentials: ReadonlySet<string>): TableShape {
  const pk = t.constraints.find((k) => k.kind === "p")?.columns ?? [];
  const indexedFirst = new Set<string>();
  const gin = new Set<string>();
  for (const k of t.constraints)
    // A key or unique constraint has an index; a foreign key has none of its own.
    if ((k.kind === "p" || k.kind === "u") && k.columns[0]) indexedFirst.add(k.columns[0]);
  for (const ix of t.indexes) {
    if (!ix.columns || ix.partial) continue;
    if (ix.method === "btree") indexedFirst.add(ix.columns[0]!);
    if (ix.method === "gin" && ix.columns.length === 1) gin.add(ix.columns[0]!);
  }
  if (pk.length > 0) return { table: t, primaryKey: pk, indexedFirst, gin };
  const key = keyIndexOf(t, credentials);
  return key
    ? { table: t, primaryKey: [...key.columns!], keyIndex: key.name, indexedFirst, gin }
    : { table: t, primaryKey: pk, indexedFirst, gin };
}

/**
 * The unique index a table without a primary key is keyed by: a plain
 * btree unique index (no predicate, no expression) whose columns are all
 * NOT NULL and none a credential, the one with the fewest columns, then by
 * name; undefined when there is none (docs/decisions/1376-composite-key-address.md).
 */
function keyIndexOf(t: CatalogTable, credentials: ReadonlySet<string>): CatalogIndex | undefined {
  const notNull = new Set(t.columns.filter((c) => c.notNull).map((c) => c.name));
  return t.indexes
    .filter(
      (ix) =>
        ix.unique &&
        ix.method === "btree" &&
        unwritableIndex(ix) === undefined &&
        ix.columns!.length > 0 &&
        ix.columns!.every((c) => notNull.has(c) && !credentials.has(c)),
    )
    .sort((a, b) => a.columns!.length - b.columns!.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
}

/**
 * Renders `catalog` (read from the namespaces `extras.schemas`) as
 * `.resource` text, not yet formatted.
 */
export function renderCatalog(catalog: Catalog, extras: Extras): Rendered {
  const leftOut: string[] = [];
  const warnings: string[] = [];
  const out: string[] = [];
  const skip = (what: string, why: string): void => {
    leftOut.push(`${what}: ${why}`);
    out.push(`// left out: ${what}: ${why}`);
  };
  const names = nameBook(catalog);
  const enumValues = new Map(catalog.enums.map((e) => [e.spelled, e.values]));
  const domains = new Map(catalog.domains.map((d) => [d.spelled, d]));
  const described = new Set(extras.schemas ?? ["public"]);
  const tableNames = new Set(
    catalog.tables.filter((t) => !extras.exclude?.has(names.table(t))).map((t) => placedKey(t)),
  );

  for (const v of extras.views) skip(`view ${v}`, "the language describes tables only");
  for (const tr of extras.triggers)
    skip(`trigger ${tr}`, "triggers are the database's own behaviour; they keep running");
  if (extras.functions > 0)
    skip(
      `${extras.functions} function(s)`,
      "functions are not described; defaults and checks may still call them (a baseline migration recreates them)",
    );
  for (const r of extras.rowSecurity ?? []) {
    const policies = (extras.policies ?? []).filter((p) => placedKey(p.table) === placedKey(r.table));
    skip(
      `row-level security of table ${placedKey(r.table)}${r.forced ? " (forced: its owner too)" : ""}`,
      policies.length === 0
        ? "on, with no policy: roles other than its owner, superusers and BYPASSRLS roles read no row of it"
        : `${policies.length} policy(ies), reported below; they apply to resc's requests only with the auth block's database settings`,
    );
  }
  for (const p of extras.policies ?? []) {
    const at = catalog.tables.find((t) => placedKey(t) === placedKey(p.table));
    const enforced = (extras.rowSecurity ?? []).some((r) => placedKey(r.table) === placedKey(p.table));
    const report = policyReport(
      p,
      at ? names.table(at) : placedKey(p.table),
      (c) => (at ? names.column(at, c) : c),
      enforced,
    );
    skip(report.what, report.why);
  }
  const used = extensionsUsed(
    catalog.tables.flatMap((t) => t.columns.map((c) => c.type.replace(/(\[\])+$/, "").replace(/\(.*\)$/, ""))),
    catalog.tables.flatMap((t) => [
      ...t.columns.flatMap((c) => (c.default !== undefined ? [c.default] : [])),
      ...t.constraints.filter((k) => k.kind === "c").map((k) => k.definition),
    ]),
  );
  for (const e of catalog.extensions)
    if (!used.includes(e))
      skip(`extension ${e}`, "nothing described needs it, so resc sql does not create it; it stays installed");
  if (out.length > 0) out.push("");

  for (const e of catalog.enums) {
    const name = names.types.get(e.spelled)!;
    const head = [`enum ${name}`, ...placement(e, name, "@")].join(" ");
    out.push(`${head} { ${e.values.map((v) => (bareValue(v) ? v : str(v))).join(" ")} }`, "");
  }
  for (const d of catalog.domains) {
    const base = resourceType(d.type, names.types);
    if (base === undefined) {
      skip(`domain ${placedKey(d)}`, `its base type ${d.type} has no spelling in the language`);
      continue;
    }
    const name = names.types.get(d.spelled)!;
    const checks = d.checks.map((c) => `@check(${str(checkCondition(c))})`);
    if (d.notNull || d.default !== undefined) {
      // The language's domain has neither: the database keeps them (the drift gate does not compare them).
      const what = [d.notNull ? "NOT NULL" : "", d.default !== undefined ? `DEFAULT ${d.default}` : ""];
      const why = "a domain of the language has no NOT NULL or default; the database keeps it";
      out.push(`// left out: ${what.filter(Boolean).join(" and ")} of domain ${placedKey(d)}: ${why}`);
      leftOut.push(`${what.filter(Boolean).join(" and ")} of domain ${placedKey(d)}: ${why}`);
    }
    out.push([`domain ${name} ${base}`, ...checks, ...placement(d, name, "@")].join(" "), "");
  }

  // The names each table's relations take (forward and inverse alike share them with its columns), by its key.
  const relationNames = new Map<string, Set<string>>();
  const namesOn = (t: CatalogTable): Set<string> => {
    const key = placedKey(t);
    let used = relationNames.get(key);
    if (!used) relationNames.set(key, (used = new Set(t.columns.map((c) => names.column(t, c.name)))));
    return used;
  };
  const inverseOf = (target: CatalogTable, from: string, column: string): string => {
    const used = namesOn(target);
    let name = used.has(from) ? `${from}_by_${relationName(column)}` : from;
    for (let n = 2; used.has(name); n++) name = `${from}_${n}`;
    used.add(name);
    return name;
  };
  const byKey = new Map(catalog.tables.map((t) => [placedKey(t), t]));
  /** The described table a foreign key refers to, or undefined when it lies outside what is pulled. */
  const targetOf = (k: CatalogConstraint): CatalogTable | undefined => {
    const r = k.references;
    if (!r || !described.has(r.schema)) return undefined;
    const key = placedKey({ schema: r.schema, name: r.table });
    return tableNames.has(key) ? byKey.get(key) : undefined;
  };

  for (const read of catalog.tables) {
    // A foreign key every partition has is the partitioned table's own, as the drift gate reads it.
    const t = { ...read, constraints: [...read.constraints, ...(read.partitionForeignKeys ?? [])] };
    const tname = names.table(t);
    const col = (c: string): string => names.column(t, c);
    const excluded = extras.exclude?.get(tname);
    if (excluded !== undefined) {
      skip(`table ${placedKey(t)}`, excluded);
      continue;
    }
    const relations = namesOn(t);
    // The table's `@soft_delete`, once one is found, and the removal marks resc cannot apply (decision 1369).
    let softDeleted = false;
    const scopedBy: string[] = [];
    // Which columns may hold a credential, judged with their siblings and table (catalog/render/secrets.ts): first
    // with no key, so a table keyed by a unique index is never keyed by a credential, then with the key it has.
    const fkColumns = new Set(t.constraints.filter((k) => k.kind === "f").flatMap((k) => k.columns));
    const judged = (key: readonly string[]): Map<string, string> =>
      credentialColumns(
        t.name,
        t.columns.map((c) => ({
          name: c.name,
          type: domains.get(c.type)?.type ?? c.type,
          ...(c.comment !== undefined ? { comment: c.comment } : {}),
          key: key.includes(c.name),
          reference: fkColumns.has(c.name),
        })),
      );
    const s = shapeOf(t, new Set(judged([]).keys()));
    const body: string[] = [];
    const kept = new Set<string>();
    const secrets = judged(s.primaryKey);
    for (const c of t.columns) {
      const cname = col(c.name);
      const written = resourceType(c.type, names.types);
      // A column that owns the sequence it is numbered from is what `serial` makes (decision 1250).
      const serial = c.serial !== undefined ? SERIAL_OF[c.type] : undefined;
      const type = serial ?? written;
      if (type === undefined || c.generated !== undefined) {
        const why =
          c.generated !== undefined
            ? "a generated column; the language cannot declare one (it stays in the database)"
            : `its type ${c.type} has no spelling in the language`;
        body.push(`  // left out: column ${c.name} (${c.type}): ${why}`);
        leftOut.push(`column ${placedKey(t)}.${c.name}: ${why}`);
        continue;
      }
      kept.add(c.name);
      const attrs: string[] = [];
      if (cname !== c.name) attrs.push(`@map(${str(c.name)})`);
      if (s.keyIndex === undefined && s.primaryKey.length === 1 && s.primaryKey[0] === c.name)
        attrs.push("@primary_key");
      const def = defaultAttr(c, enumValues);
      if (def) attrs.push(def);
      if (t.constraints.some((k) => writableUnique(k) && k.columns.length === 1 && k.columns[0] === c.name))
        attrs.push("@unique");
      const fk = t.constraints.find((k) => k.kind === "f" && k.columns.length === 1 && k.columns[0] === c.name);
      // A reference is bound to the table it names in its own schema, never rebound by name to another one.
      const target = fk ? targetOf(fk) : undefined;
      if (fk && target) {
        let rel = relationName(cname);
        while (relations.has(rel)) rel = `${rel}_ref`;
        relations.add(rel);
        const targetPk = target.constraints.find((k) => k.kind === "p")?.columns ?? [];
        const referenced = fk.references!.columns[0]!;
        const column =
          targetPk.length === 1 && targetPk[0] === referenced ? "" : `, column: ${names.column(target, referenced)}`;
        attrs.push(`@ref(${rel}, ${names.table(target)}${column})`);
        attrs.push(`@inverse(${inverseOf(target, tname, cname)})`);
      }
      // One @check per column: the language says it once; a second check on the column is left out, named.
      const checks = t.constraints.filter((k) => k.kind === "c" && k.columns[0] === c.name);
      if (checks[0]) attrs.push(`@check(${str(checkCondition(checks[0].definition))})`);
      for (const k of checks.slice(1)) {
        body.push(
          `  // left out: check ${k.name} ${k.definition}: the column has a check already (one @check per column)`,
        );
        leftOut.push(
          `check ${placedKey(t)}.${k.name}: the column ${c.name} has a check already (one @check per column)`,
        );
      }
      const role = { key: s.primaryKey.includes(c.name), reference: fk !== undefined };
      // Keys and references are ids, never secrets; and a hidden key could not be served at all.
      const secret = role.key || role.reference ? undefined : secrets.get(c.name);
      const mark = removalMark(c, cname, domains, role, softDeleted);
      if (mark?.kind === "scope") scopedBy.push(cname);
      if (mark?.kind === "plain") body.push(`  // not a soft delete: ${mark.why}`);
      if (mark?.kind === "soft-delete") {
        softDeleted = true;
        body.push("  // a soft delete: resc never serves a row where it is set, and DELETE sets it");
        attrs.push("@soft_delete", "@hidden");
      } else if (secret !== undefined) {
        if (c.notNull && def === undefined && serial === undefined && domains.get(c.type)?.default === undefined) {
          // Not a blocker of the read-only file pull writes; a create would need it (docs/decisions/1256).
          const fix = "set it in a BeforeCreate hook and mark it @stamped, give it a @default(…), or remove @hidden";
          body.push(`  // required and hidden: a create of /${tname} must supply it: ${fix}`);
          warnings.push(`column ${placedKey(t)}.${c.name} is hidden and required: before adding create, ${fix}`);
        }
        body.push(`  // hidden by resc pull: ${secret}; remove @hidden to serve it`);
        attrs.push("@hidden");
      } else {
        const array = type.endsWith("[]");
        const doc = type.startsWith("json");
        // A column named like a parameter of the list grammar (`sort`, `page`) cannot be filtered by name.
        const filterable = !RESERVED_PARAMETERS.includes(cname);
        if (s.indexedFirst.has(c.name) && !array && !doc)
          attrs.push(...(filterable ? ["@filterable"] : []), "@sortable");
        else if (s.gin.has(c.name) && (array || type.startsWith("jsonb")) && filterable) attrs.push("@filterable");
      }
      if (c.comment !== undefined) body.push(...docLines(c.comment, "  "));
      body.push(`  ${cname} ${type}${c.notNull ? "" : "?"} ${attrs.join(" ")}`.trimEnd());
    }
    const list = (cols: readonly string[]): string => `[${cols.map(col).join(", ")}]`;
    const blockAttrs: string[] = placement(t, tname, "@@").map((a) => `  ${a}`);
    const keyKept = s.primaryKey.length > 0 && s.primaryKey.every((c) => kept.has(c));
    if (s.keyIndex !== undefined && keyKept)
      blockAttrs.push(`  @@primary_key(${list(s.primaryKey)}, index: ${str(s.keyIndex)})`);
    else if (s.primaryKey.length > 1 && keyKept) blockAttrs.push(`  @@primary_key(${list(s.primaryKey)})`);
    for (const k of t.constraints) {
      if (writableUnique(k) && k.columns.length > 1 && k.columns.every((c) => kept.has(c)))
        blockAttrs.push(`  @@unique(${list(k.columns)})`);
      if (k.kind === "u" && !writableUnique(k)) {
        const why = "NULLS NOT DISTINCT has no spelling in the language; the constraint stays in the database";
        blockAttrs.push(`  // left out: unique ${k.name} ${k.definition}: ${why}`);
        leftOut.push(`unique ${placedKey(t)}.${k.name}: ${why}`);
      }
      if (k.kind === "f" && (k.columns.length > 1 || targetOf(k) === undefined)) {
        const r = k.references!;
        const other = !described.has(r.schema);
        const why = other
          ? `it refers to ${r.schema}.${r.table}, a table of a schema not pulled (add it with --schema); a reference is never rebound to another table by name`
          : "only single-column references to described tables are expressible";
        blockAttrs.push(`  // left out: foreign key ${k.name} ${k.definition}: ${why}`);
        leftOut.push(`foreign key ${placedKey(t)}.${k.name}: ${why}`);
      }
      if (k.kind === "c" && k.columns.length === 0) {
        blockAttrs.push(`  // left out: check ${k.name} ${k.definition}: it names no column`);
        leftOut.push(`check ${placedKey(t)}.${k.name}: it names no column`);
      }
    }
    // The key's own index is written by its @@primary_key.
    for (const ix of t.indexes)
      if (!(keyKept && ix.name === s.keyIndex)) blockAttrs.push(indexAttr(t, ix, kept, leftOut, names));
    for (const c of t.columns)
      if (kept.has(c.name) && c.type === "boolean" && DELETED_FLAG.test(col(c.name))) scopedBy.push(col(c.name));
    if (scopedBy.length > 0) {
      const marks = scopedBy.length === 1 ? `${scopedBy[0]} marks` : `${scopedBy.join(" and ")} mark`;
      blockAttrs.push(
        `  @@scoped  // ${marks} removed rows: served only once a BeforeQuery hook or an access rule leaves them out`,
      );
    }
    if (t.partitionedBy !== undefined) {
      // The parent is what queries name; the partitions are PostgreSQL's storage of it.
      const why = `partitioned by ${t.partitionedBy}: the parent is described and served; resc sql makes a plain table`;
      body.unshift(`  // left out: partitions of ${t.name}: ${why}`);
      leftOut.push(`partitions of ${placedKey(t)}: ${why}`);
    }
    if (t.comment !== undefined) out.push(...docLines(t.comment, ""));
    out.push(`table ${tname} {`, ...body);
    if (blockAttrs.length > 0) out.push("", ...blockAttrs);
    if (keyKept) {
      // A table carrying resc's capture trigger keeps its change feed (docs/decisions/1337-change-feed.md).
      const events = t.capture !== undefined ? ", events = true" : "";
      out.push("", `  resource "/${tname}" { ops = [reads]${events} }`);
    } else {
      // The spec serves a table by its key: without one (or with a key column left out) it is described, not served.
      const why = s.primaryKey.length === 0 ? "it has no primary key" : "a column of its primary key is left out";
      out.push("", `  // not served: ${why}`);
      leftOut.push(`resource for table ${placedKey(t)}: ${why}`);
    }
    out.push("}", "");
  }
  return { text: out.join("\n"), leftOut, warnings };
}

function indexAttr(
  t: CatalogTable,
  ix: CatalogIndex,
  kept: ReadonlySet<string>,
  leftOut: string[],
  names: NameBook,
): string {
  const why =
    unwritableIndex(ix) ?? (ix.columns!.some((c) => !kept.has(c)) ? "it covers a column left out" : undefined);
  if (why) {
    leftOut.push(`index ${placedKey(t)}.${ix.name}: ${why}`);
    return `  // left out: index ${ix.name}: ${why}`;
  }
  const args = [`[${ix.columns!.map((c) => names.column(t, c)).join(", ")}]`];
  if (ix.method !== "btree") args.push(`using: ${ix.method}`);
  if (ix.unique) args.push("unique: true");
  args.push(`name: ${str(ix.name)}`);
  return `  @@index(${args.join(", ")})`;
}
