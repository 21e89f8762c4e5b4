/**
 * A database schema as PostgreSQL itself spells it: types through
 * `format_type`, defaults through `pg_get_expr`, constraints through
 * `pg_get_constraintdef`, indexes through `pg_get_indexdef`. Both sides of
 * every comparison (`resc migrate diff`, `resc check --database-url`) are
 * read this way, from a live database or from a scratch one the schema's
 * DDL was applied to, so a difference is a real one and never a spelling
 * (docs/decisions/1240-migrations.md).
 */
import { regclassParts } from "../compiler/backends/sql/sequences.js";
import { encodeArray } from "../runtime/sql/bind.js";
import type { Executor } from "../runtime/exec/executor.js";
import { CAPTURE_TRIGGER, isOwnRelation, isOwnTable } from "../runtime/own-objects.js";
import {
  INDEX_HEAD,
  nextvalSequence,
  placedKey,
  type Catalog,
  type CatalogColumn,
  type CatalogConstraint,
  type CatalogDomain,
  type CatalogIndex,
  type CatalogTable,
  type Placed,
} from "./model.js";

/** The sequence a column of `c` (attribute `a`) owns, a serial column's, by name. */
const OWNED_SEQUENCE = `(select s.relname from pg_depend dep join pg_class s on s.oid = dep.objid and s.relkind = 'S'
              where dep.classid = 'pg_class'::regclass and dep.refclassid = 'pg_class'::regclass
                and dep.refobjid = c.oid and dep.refobjsubid = a.attnum and dep.deptype = 'a'
              order by s.relname limit 1)`;

/** What {@link readCatalog} reads beyond a schema's tables; both off by default. */
export interface ReadOptions {
  /** Read views, materialized views and foreign tables too, as tables with columns (and a view's indexes). */
  views?: boolean;
  /**
   * Names only (enums and values, domains, tables, columns with types and nullability, indexes, keys, the change
   * capture): no comments, defaults, owned sequences, foreign keys, checks, partitions' keys, sequences or
   * extensions, which the presence-only comparison does not look at.
   */
  namesOnly?: boolean;
  /** Keep resc's own tables (runtime/own-objects.ts), for a check that asks whether the outbox exists. */
  ownTables?: boolean;
}

async function rows(db: Executor, text: string, values: string[]): Promise<Record<string, string | null>[]> {
  return (await db.query({ text, values })).rows;
}

/**
 * Reads the catalog of the namespaces `schemas` (default `public`), leaving
 * out resc's own objects (runtime/own-objects.ts). Views,
 * partitions' children and functions are not read: the language has no
 * way to say them. Sequences are read by name only (what a `nextval`
 * default needs to exist), never their position. Types and references in
 * definitions are spelled as the session's search path shows them (read
 * with `public` on it, names elsewhere come back qualified).
 * `options` widens the read for the presence-only comparison of the live schema check (`render/mismatches.ts`).
 * @throws the driver's error when the database cannot be queried
 */
export async function readCatalog(
  db: Executor,
  schemas: string | readonly string[] = "public",
  options: ReadOptions = {},
): Promise<Catalog> {
  // Views, materialized views and foreign tables have columns a declared table may be served from: read as tables
  // only when asked (the live check has always found a declared table there; the language cannot create one).
  const kinds = options.views ? `('r', 'p', 'v', 'm', 'f')` : `('r', 'p')`;
  // Names only: what a presence check compares, without the per-column and per-constraint work it would not use.
  const full = options.namesOnly !== true;
  const none = Promise.resolve([]);
  const list = typeof schemas === "string" ? [schemas] : [...schemas];
  const schema = encodeArray(list);
  // Read at once: on a pool each query takes its own connection, so a read waits for the slowest, not the sum.
  const [enums, domains, columns, constraints, partitionKeys, indexes, captures, sequences, extensions] =
    await Promise.all([
      rows(
        db,
        `select n.nspname as ns, t.typname as name, format_type(t.oid, null) as spelled, string_agg(e.enumlabel, E'\\n' order by e.enumsortorder) as vals
     from pg_type t join pg_namespace n on n.oid = t.typnamespace join pg_enum e on e.enumtypid = t.oid
     where n.nspname = any($1::text[]) group by n.nspname, t.typname, t.oid order by n.nspname, t.typname`,
        [schema],
      ),
      rows(
        db,
        `select n.nspname as ns, t.typname as name, format_type(t.oid, null) as spelled, format_type(t.typbasetype, t.typtypmod) as type, t.typnotnull::text as notnull,
            t.typdefault as def,
            (select string_agg(pg_get_constraintdef(c.oid), E'\\n' order by pg_get_constraintdef(c.oid))
               from pg_constraint c where c.contypid = t.oid and c.contype = 'c') as checks,
            (select string_agg(c.conname, E'\\n' order by pg_get_constraintdef(c.oid))
               from pg_constraint c where c.contypid = t.oid and c.contype = 'c') as checknames
     from pg_type t join pg_namespace n on n.oid = t.typnamespace
     where n.nspname = any($1::text[]) and t.typtype = 'd' order by n.nspname, t.typname`,
        [schema],
      ),
      rows(
        db,
        `select n.nspname as ns, c.relname as tbl, a.attname as name,
            case when c.relkind = 'p' then pg_get_partkeydef(c.oid) end as partkey,
            ${full ? "col_description(c.oid, a.attnum)" : "null"} as comment,
            ${full ? "obj_description(c.oid, 'pg_class')" : "null"} as tcomment, format_type(a.atttypid, a.atttypmod) as type,
            a.attnotnull::text as notnull, a.attidentity as ident, a.attgenerated as gen,
            ${full ? "pg_get_expr(d.adbin, d.adrelid)" : "null"} as def,
            ${full ? OWNED_SEQUENCE : "null"} as ownseq
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
     left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
     where n.nspname = any($1::text[]) and c.relkind in ${kinds} and not c.relispartition
     order by n.nspname, c.relname, a.attnum`,
        [schema],
      ),
      rows(
        db,
        `select n.nspname as ns, c.relname as tbl, k.conname as name, k.contype as kind, pg_get_constraintdef(k.oid) as def,
            (select string_agg(a.attname, E'\n' order by u.ord) from unnest(k.conkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n) as cols,
            f.relname as ftbl, (select fn.nspname from pg_namespace fn where fn.oid = f.relnamespace) as fschema,
            (select string_agg(a.attname, E'\n' order by u.ord) from unnest(k.confkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n) as fcols
     from pg_constraint k left join pg_class f on f.oid = k.confrelid join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any($1::text[]) and c.relkind in ${kinds} and not c.relispartition and k.contype in ${full ? "('p', 'u', 'f', 'c')" : "('p', 'u')"} order by n.nspname, c.relname, k.conname`,
        [schema],
      ),
      // Foreign keys every partition of a partitioned table has, by definition, with the first partition's name.
      !full
        ? none
        : rows(
            db,
            `select n.nspname as ns, c.relname as tbl, min(k.conname) as name, pg_get_constraintdef(k.oid) as def,
            (select string_agg(a.attname, E'\n' order by u.ord) from unnest(k.conkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = u.n) as cols,
            f.relname as ftbl, fn.nspname as fschema,
            (select string_agg(a.attname, E'\n' order by u.ord) from unnest(k.confkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = u.n) as fcols
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     join pg_inherits i on i.inhparent = c.oid
     join pg_constraint k on k.conrelid = i.inhrelid and k.contype = 'f' and k.conparentid = 0
     join pg_class f on f.oid = k.confrelid join pg_namespace fn on fn.oid = f.relnamespace
     where n.nspname = any($1::text[]) and c.relkind = 'p'
     group by n.nspname, c.relname, c.oid, pg_get_constraintdef(k.oid), cols, f.relname, fn.nspname, fcols
     having count(distinct i.inhrelid) = (select count(*) from pg_inherits j where j.inhparent = c.oid)
     order by 1, 2, 4`,
            [schema],
          ),
      rows(
        db,
        `select n.nspname as ns, c.relname as tbl, i.relname as name, pg_get_indexdef(x.indexrelid) as def, am.amname as method,
            x.indisunique::text as uniq, (x.indpred is not null)::text as partial, (x.indexprs is not null)::text as expr,
            (select string_agg(a.attname, E'\n' order by u.ord) from unnest(x.indkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = x.indrelid and a.attnum = u.n) as cols,
            (select string_agg(quote_ident(a.attname), ', ' order by u.ord) from unnest(x.indkey) with ordinality u(n, ord)
               join pg_attribute a on a.attrelid = x.indrelid and a.attnum = u.n) as qcols
     from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class c on c.oid = x.indrelid
     join pg_am am on am.oid = i.relam
     join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any($1::text[]) and c.relkind in ${kinds} and not c.relispartition
       and not exists (select 1 from pg_constraint k where k.conindid = x.indexrelid and k.conrelid = x.indrelid)
     order by n.nspname, c.relname, i.relname`,
        [schema],
      ),
      rows(
        db,
        `select n.nspname as ns, c.relname as tbl, encode(t.tgargs, 'escape') as args
     from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = any($1::text[]) and t.tgname = $2 and not t.tgisinternal
     order by n.nspname, c.relname`,
        [schema, CAPTURE_TRIGGER],
      ),
      !full
        ? none
        : rows(
            db,
            `select n.nspname as ns, s.relname as name
     from pg_class s join pg_namespace n on n.oid = s.relnamespace
     where n.nspname = any($1::text[]) and s.relkind = 'S'
       and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = s.oid
                         and d.refclassid = 'pg_class'::regclass and d.deptype = 'i')
     order by n.nspname, s.relname`,
            [schema],
          ),
      !full
        ? none
        : rows(
            db,
            `select extname as name from pg_extension where extname <> 'plpgsql' and $1::text[] is not null order by extname`,
            [schema],
          ),
    ]);

  const tables = new Map<string, CatalogTable>();
  const serialSequences = new Set<string>();
  const table = (r: Record<string, string | null>): CatalogTable => {
    const at: Placed = { schema: r.ns!, name: r.tbl! };
    const key = placedKey(at);
    let t = tables.get(key);
    if (!t) tables.set(key, (t = { ...at, columns: [], constraints: [], indexes: [] }));
    return t;
  };
  for (const r of columns) {
    const col: CatalogColumn = {
      name: r.name!,
      type: r.type!,
      notNull: r.notnull === "true",
    };
    if (r.ident === "a" || r.ident === "d") col.identity = r.ident;
    if (r.comment) col.comment = r.comment;
    const named = r.def !== null ? nextvalSequence(r.def) : undefined;
    if (r.gen === "s" && r.def !== null) col.generated = r.def;
    else if (r.ownseq !== null && named !== undefined && regclassParts(named).at(-1) === r.ownseq) {
      col.serial = r.ownseq;
      serialSequences.add(placedKey({ schema: r.ns!, name: r.ownseq }));
    } else if (r.def !== null) col.default = r.def;
    const t = table(r);
    if (r.partkey) t.partitionedBy = r.partkey;
    if (r.tcomment) t.comment = r.tcomment;
    t.columns.push(col);
  }
  for (const r of constraints) {
    const k: CatalogConstraint = {
      name: r.name!,
      kind: r.kind as CatalogConstraint["kind"],
      definition: r.def!,
      columns: r.cols ? r.cols.split("\n") : [],
    };
    if (r.ftbl)
      k.references = {
        table: r.ftbl,
        schema: r.fschema ?? r.ns!,
        columns: r.fcols ? r.fcols.split("\n") : [],
      };
    table(r).constraints.push(k);
  }
  for (const r of partitionKeys) {
    const t = table(r);
    if (t.constraints.some((k) => k.kind === "f" && k.definition === r.def)) continue;
    (t.partitionForeignKeys ??= []).push({
      name: r.name!,
      kind: "f",
      definition: r.def!,
      columns: r.cols ? r.cols.split("\n") : [],
      references: { table: r.ftbl!, schema: r.fschema!, columns: r.fcols ? r.fcols.split("\n") : [] },
    });
  }
  for (const r of indexes) {
    const def = r.def!;
    // "CREATE [UNIQUE] INDEX name ON [ONLY] ns.tbl USING …" → "[UNIQUE] USING …": what the index is, not what it is called.
    const shape = def.replace(INDEX_HEAD, "$1");
    const ix: CatalogIndex = {
      name: r.name!,
      shape,
      definition: def,
      method: r.method!,
      unique: r.uniq === "true",
      partial: r.partial === "true",
    };
    if (r.expr !== "true" && r.cols) {
      ix.columns = r.cols.split("\n");
      ix.plainShape = `${ix.unique ? "UNIQUE " : ""}USING ${ix.method} (${r.qcols})`;
    }
    table(r).indexes.push(ix);
  }
  for (const r of captures) {
    const t = tables.get(placedKey({ schema: r.ns!, name: r.tbl! }));
    // tgargs holds each argument followed by a NUL byte, which `encode(…, 'escape')` writes as \000.
    if (t) t.capture = r.args!.split("\\000")[0];
  }
  return {
    enums: enums.map((r) => ({ schema: r.ns!, name: r.name!, spelled: r.spelled!, values: r.vals!.split("\n") })),
    domains: domains.map((r) => {
      const d: CatalogDomain = {
        schema: r.ns!,
        name: r.name!,
        spelled: r.spelled!,
        type: r.type!,
        notNull: r.notnull === "true",
        checks: r.checks ? r.checks.split("\n") : [],
        checkNames: r.checknames ? r.checknames.split("\n") : [],
      };
      if (r.def !== null) d.default = r.def;
      return d;
    }),
    // resc's own tables and what comes with them are never a schema's (docs/decisions/1357-resc-own-objects.md): left
    // out here, where every comparison and `resc pull` read, so no caller can forget to.
    tables: [...tables.values()]
      .filter((t) => options.ownTables === true || !isOwnTable(t.name))
      .sort((a, b) => a.schema.localeCompare(b.schema) || a.name.localeCompare(b.name)),
    sequences: sequences
      .map((r): Placed => ({ schema: r.ns!, name: r.name! }))
      .filter((s) => !serialSequences.has(placedKey(s)) && !isOwnRelation(s.name)),
    extensions: extensions.map((r) => r.name!),
  };
}
