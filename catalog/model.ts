/**
 * The catalog model: a database schema as PostgreSQL itself spells it, the one shape the reader
 * (`read.ts`) fills from a live database, the projection (`project/`) fills from a compiled schema, the differ
 * (`diff.ts`) compares and the renderers (`render/`) write out (docs/decisions/1375-catalog-room.md). Types are
 * spelled through `format_type`, defaults through `pg_get_expr`, constraints through `pg_get_constraintdef`,
 * indexes through `pg_get_indexdef` (docs/decisions/1240-migrations.md).
 */
import { tableSql } from "../runtime/sql/ident.js";

/** Where an object of the catalog lives: its namespace and its name there, as stored. */
export interface Placed {
  /** The namespace (`public`, `billing`). */
  schema: string;
  name: string;
}

/**
 * How the catalog names an object in keys and messages: `name` in `public`,
 * `schema.name` elsewhere, so a database in `public` alone reads as it
 * always did (docs/decisions/1257-database-names.md).
 */
export function placedKey(x: Placed): string {
  return x.schema === "public" ? x.name : `${x.schema}.${x.name}`;
}

/** An object's quoted SQL name: `"film"` in `public`, `"billing"."invoices"` elsewhere (the runtime's `tableSql`). */
export function placedSql(x: Placed): string {
  return tableSql(x.schema === "public" ? { name: x.name } : x);
}

/** A column as the catalog has it. */
export interface CatalogColumn {
  name: string;
  /** `COMMENT ON COLUMN`, when there is one. */
  comment?: string;
  /** `format_type(atttypid, atttypmod)`, e.g. `numeric(4,2)`, `text[]`, `mpaa_rating`. */
  type: string;
  notNull: boolean;
  /** The default expression, absent when none (identity columns have none). */
  default?: string;
  /** `a` (ALWAYS) or `d` (BY DEFAULT) for an identity column. */
  identity?: "a" | "d";
  /** The expression of a generated (stored) column. */
  generated?: string;
  /**
   * For a `serial` column: the sequence the column owns and takes its
   * default from (`nextval('<name>'::regclass)`), so `default` is absent.
   * Two serial columns compare equal whatever their sequences are called
   * (a renamed table keeps its sequence's old name).
   */
  serial?: string;
}

/** A table constraint, keyed by its definition (names differ between databases). */
export interface CatalogConstraint {
  name: string;
  /** `p` primary key, `u` unique, `f` foreign key, `c` check. */
  kind: "p" | "u" | "f" | "c";
  /** `pg_get_constraintdef`, e.g. `PRIMARY KEY (id)`, `FOREIGN KEY (a) REFERENCES t(id)`. */
  definition: string;
  /** The constrained columns, in key order. */
  columns: string[];
  /** For a foreign key: the referenced table, its schema (namespace) and columns. */
  references?: { table: string; schema: string; columns: string[] };
}

/** An index that backs no constraint. */
export interface CatalogIndex {
  name: string;
  /** `pg_get_indexdef` with the index and table names taken out, so two spellings compare equal. */
  shape: string;
  /** The full `CREATE INDEX` statement. */
  definition: string;
  /** The access method, e.g. `btree`, `gin`. */
  method: string;
  unique: boolean;
  /** The indexed columns in order; absent when an expression is indexed. */
  columns?: string[];
  /** True for an index with a WHERE clause. */
  partial: boolean;
  /**
   * The shape a plain index on `columns` has (`[UNIQUE ]USING m (a, "b")`, names quoted by `quote_ident` as the
   * deparser quotes them); a `shape` that differs carries an operator class, an order or options.
   */
  plainShape?: string;
}

/** A table: its columns in order, constraints and indexes. */
export interface CatalogTable extends Placed {
  /** `COMMENT ON TABLE`, when there is one. */
  comment?: string;
  /** For a partitioned table, its partition key (`pg_get_partkeydef`: `RANGE (payment_date)`); its partitions are not read. */
  partitionedBy?: string;
  /**
   * For a partitioned table: the foreign keys every one of its partitions has and it has not (a dump of
   * PostgreSQL 10's era puts them there, as Pagila's does). Each holds for every row of the table; the drift
   * gate reads them as the table's own.
   */
  partitionForeignKeys?: CatalogConstraint[];
  columns: CatalogColumn[];
  constraints: CatalogConstraint[];
  indexes: CatalogIndex[];
  /**
   * The change feed's trigger on this table, when it has one: the table's name in the schema, the trigger's
   * argument (docs/decisions/1337-change-feed.md). Only resc's own trigger is read: the drift gate and
   * `migrate diff` leave every other trigger of an adopted database (Pagila's `last_updated`) alone.
   */
  capture?: string;
}

/** A domain over a base type. */
export interface CatalogDomain extends Placed {
  /** How column types name it (`format_type`): `year`, `"Name"`, `billing.amount`. */
  spelled: string;
  type: string;
  notNull: boolean;
  default?: string;
  /** `pg_get_constraintdef` of each CHECK, e.g. `CHECK ((VALUE >= 0))`, sorted. */
  checks: string[];
  /** The constraint name of each check, in the order of `checks`. */
  checkNames: string[];
}

/** An enum type and its values in order. */
export interface CatalogEnum extends Placed {
  /** How column types name it (`format_type`): `mpaa_rating`, `"Role"`, `billing.status`. */
  spelled: string;
  values: string[];
}

/** The tables, enums, domains and sequences of one or more namespaces, each list sorted by namespace and name. */
export interface Catalog {
  enums: CatalogEnum[];
  domains: CatalogDomain[];
  tables: CatalogTable[];
  /**
   * Sequences that stand on their own: not an identity column's and not a
   * serial column's (those come and go with their column). A default
   * `nextval('s')` names one of these (docs/decisions/1250-sequences.md).
   */
  sequences: Placed[];
  /**
   * The extensions installed in the database (any namespace), but
   * `plpgsql`, which every database has: a `citext` column or a
   * `uuid_generate_v4()` default needs its extension first.
   */
  extensions: string[];
}

/** One identifier as `pg_get_indexdef` writes it: bare, or double-quoted with quotes doubled. */
const IDENT = `(?:"(?:[^"]|"")*"|[^\\s."]+)`;

/**
 * `CREATE [UNIQUE] INDEX <name> ON [ONLY] [<ns>.]<table> ` at the start of an
 * index definition: what it is called and where, not what it is. Groups:
 * `UNIQUE ` (or none), the name as written.
 */
export const INDEX_HEAD = new RegExp(`^CREATE (UNIQUE )?INDEX (${IDENT}) ON (?:ONLY )?${IDENT}(?:\\.${IDENT})? `);

/**
 * Why the language cannot write index `ix` as it is, or undefined when it
 * can: an expression or a WHERE clause, or a column list carrying more than
 * the columns (an operator class such as `gin_trgm_ops`, `DESC`, `NULLS
 * FIRST`, a collation, `INCLUDE`, storage options, `NULLS NOT DISTINCT`).
 * `pg_get_indexdef` names an operator class only when it is not the
 * column type's default, so a plain index reads `USING m (a, b)` exactly.
 */
export function unwritableIndex(ix: CatalogIndex): string | undefined {
  if (!ix.columns) return "it indexes an expression";
  if (ix.partial) return "it is partial (WHERE)";
  if (ix.plainShape === undefined || ix.shape === ix.plainShape) return undefined;
  return `its definition carries what the language cannot write (${ix.shape.replace(/^UNIQUE /, "")})`;
}

/** Whether a unique constraint is one the language writes (`@unique`, `@@unique`): not `NULLS NOT DISTINCT`. */
export function writableUnique(k: CatalogConstraint): boolean {
  return k.kind === "u" && !/^UNIQUE NULLS NOT DISTINCT /.test(k.definition);
}

/** The sequence a `nextval('…'::regclass)` default names, as written there (possibly schema-qualified), or undefined. */
export function nextvalSequence(expression: string): string | undefined {
  return /^nextval\('((?:[^']|'')+)'::regclass\)$/.exec(expression)?.[1]?.replace(/''/g, "'");
}
