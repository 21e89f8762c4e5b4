/**
 * Descriptors: what a request needs at run time, as constant data.
 *
 * Generated code emits a {@link ServiceDescriptor} literal; `resc dev` builds
 * the same value in memory from the IR (`compiler/descriptor.ts`). The
 * runtime never sees the IR. Every table of the schema has a descriptor (an
 * expansion may reach a table); only tables with `resource` are served.
 */

import type { Operator } from "./operators.js";
import type { JwtAlgorithm } from "./auth/algorithms.js";

/**
 * How the runtime treats a column's values: which operators it takes
 * (spec: Operators by column type), how URL text is decoded and how the value
 * is written to JSON. Arrays are described by `array: true` plus the element
 * kind.
 */
export type ValueKind =
  | "text"
  | "integer"
  | "bigint"
  | "numeric"
  | "float"
  | "boolean"
  | "date"
  | "timestamptz"
  | "timestamp"
  | "time"
  | "uuid"
  | "jsonb"
  | "bytea"
  | "enum"
  | "other";

/** One column as the runtime sees it (spec: Column capabilities). */
export interface ColumnDescriptor {
  name: string;
  /** The column's name in the database when `@map` gives one other than `name` (docs/decisions/1257-database-names.md). */
  dbName?: string;
  /** The SQL type used to cast bind parameters, e.g. `integer`, `numeric`, `mpaa_rating`, `text[]`. Quoted when needed. */
  sqlType: string;
  /** Element kind for arrays, value kind otherwise. Domains take their base type's kind. */
  kind: ValueKind;
  array: boolean;
  /**
   * An array column whose stored type is not `sqlType` (an array of a
   * domain, whose casts name the base type; an array of `bit(n)`, cast as
   * `varbit`): PostgreSQL has no array operator between the two, so array
   * comparisons cast the column to `sqlType` (docs/decisions/1358-values-through-codecs.md).
   */
  castArrayColumn?: true;
  /** For `kind: "enum"`: the allowed values in declaration order. */
  enumValues?: string[];
  nullable: boolean;
  /** A database default exists: the column is optional on create. */
  hasDefault: boolean;
  filterable: boolean;
  sortable: boolean;
  /** Declared null placement; absent means the database default. */
  nulls?: "first" | "last";
  searchable: boolean;
  hidden: boolean;
  readOnly: boolean;
  /** `numeric(p, s)`: at most `precision` digits, `scale` of them after the point (values are rounded to `scale`). */
  precision?: number;
  scale?: number;
  /** `varchar(n)`, `character(n)`: at most `n` characters. */
  maxLength?: number;
  /** `@stamped`: a BeforeCreate hook sets it (so it is also read-only); the table's resource needs that hook to mount. */
  stamped?: true;
  immutable: boolean;
  /** For a computed column: the SQL expression over the table's columns (trusted schema text). */
  computed?: string;
  /** The soft-delete marker column. */
  softDelete: boolean;
  doc?: string;
}

/**
 * Whether `col`'s values (an array column's elements) are JSON documents:
 * `jsonb`, or `json`, which is kind `other` (no containment operators) but
 * travels as the document both ways, as reads serve it (docs/http.md
 * "JSON forms of column types"; docs/decisions/1358-values-through-codecs.md).
 */
export function holdsDocuments(col: Pick<ColumnDescriptor, "kind" | "sqlType">): boolean {
  return col.kind === "jsonb" || (col.kind === "other" && /^json(\[\])?$/i.test(col.sqlType));
}

/** A relation reachable by `expand` (spec: Expansion). */
export interface RelationDescriptor {
  /** The relation's name, used in `expand=`; never a column name. */
  name: string;
  /** forward: this table's column references the target; inverse: the target's column references this table. */
  kind: "forward" | "inverse";
  /** The other table's name. */
  target: string;
  /** forward: local referencing column; inverse: the child's referencing column. */
  column: string;
  /** forward: the target's referenced column; inverse: this table's referenced column. */
  targetColumn: string;
  expandable: boolean;
  /** Inverse only: declared child order, most significant first. */
  order: SortTerm[];
  /** Inverse only: declared cap; absent means the package default (50). */
  limit?: number;
}

/** A sort term: column and direction. */
export interface SortTerm {
  column: string;
  descending: boolean;
}

/** Resolved ceilings: the package defaults already applied (spec: Limits). */
export interface Limits {
  defaultPageSize: number;
  maxPageSize: number;
  maxFilters: number;
  maxSortTerms: number;
  maxOffset: number;
  /** The most rows one create request may carry as a JSON array (docs/decisions/1330-bulk-create.md). */
  maxBatch: number;
}

/** Which operations are exposed (spec: Generated operations). */
export interface OpSet {
  list: boolean;
  read: boolean;
  create: boolean;
  update: boolean;
  delete: boolean;
}

/**
 * A declared action (docs/decisions/1334-declared-actions.md): `item` is
 * served at `POST /<resource>/{id}/<name>` on one locked row, `collection`
 * at `POST /<resource>/<name>`. Its fields are described as columns are
 * (type, nullability, bounds), every capability off: an input field is
 * required unless nullable.
 */
export interface ActionDescriptor {
  name: string;
  target: "item" | "collection";
  input: ColumnDescriptor[];
  /** The declared output; absent: an item action answers the row as a read does, a collection action 204. */
  output?: ColumnDescriptor[];
  doc?: string;
}

/**
 * The path of `action` under the collection path `path`, its row written
 * `id`: `/rentals/:id/return` for Hono with `":id"`, `/rentals/{id}/return`
 * for OpenAPI and messages with `"{id}"`; `/rentals/<name>` for a collection
 * action (docs/decisions/1334-declared-actions.md).
 */
export function actionPath(path: string, action: Pick<ActionDescriptor, "name" | "target">, id = "{id}"): string {
  return action.target === "item" ? `${path}/${id}/${action.name}` : `${path}/${action.name}`;
}

/** The exposure of a table: its HTTP resource. */
export interface ResourceDescriptor {
  /** Collection path, `/films`. */
  path: string;
  ops: OpSet;
  /** DefaultSort as declared; empty means primary-key order. */
  defaultSort: SortTerm[];
  limits: Limits;
  /** Security requirements (documentation only). */
  security: { scheme: string; scopes: string[] }[];
  disableTransactions: boolean;
  /** PATCH and DELETE on the collection path with list filters (docs/decisions/1333-filtered-writes.md); absent means not served. */
  filteredWrites?: boolean;
  /**
   * `events = true`: the table's changes are captured by a trigger and served as Server-Sent Events at
   * `GET /<resource>/events` (docs/decisions/1337-change-feed.md); absent means no feed.
   */
  events?: boolean;
  /** Computed columns this resource computes. */
  computed: string[];
  /** Declared actions in source order; absent when none (docs/decisions/1334-declared-actions.md). */
  actions?: ActionDescriptor[];
  doc?: string;
}

/** One table of the schema. */
export interface TableDescriptor {
  name: string;
  /** The table's name in the database when `@@map` gives one other than `name` (docs/decisions/1257-database-names.md). */
  dbName?: string;
  /** The table's namespace from `@@schema`; absent means the search path. */
  schema?: string;
  columns: ColumnDescriptor[];
  primaryKey: string[];
  relations: RelationDescriptor[];
  /** `@@scoped`: needs a BeforeQuery hook before it mounts. */
  scoped: boolean;
  /** Name of the soft-delete column, if any. */
  softDeleteColumn?: string;
  /**
   * The column sets other than the primary key that identify a row: each
   * `@unique` column, each `@@unique`, each unique btree `@@index`. An
   * upsert's `on_conflict` names one of them or the key (docs/decisions/1332-upsert.md).
   */
  uniqueKeys?: string[][];
  /**
   * Database name of the primary key, each unique constraint or index and each foreign key → the columns (API
   * names) it covers, as the compiler predicts PostgreSQL's names for unnamed ones. A unique or foreign-key
   * violation is located by it when the error's detail names no column the table has (an expression index,
   * a detail PostgreSQL omits), docs/decisions/0312-delete-still-referenced.md.
   */
  constraints?: Record<string, string[]>;
  resource?: ResourceDescriptor;
  /**
   * The table's `access` blocks in source order (docs/decisions/1367-access-rules.md); absent when it
   * declares none. With {@link ServiceDescriptor.auth} set, a served table without any is served to nobody.
   */
  access?: AccessDescriptor[];
  doc?: string;
}

/**
 * Whether `col` exists for a request on `table`: not Hidden, and a computed
 * column only when the table's resource computes it, so a table served only
 * through expansion computes none (spec: Column capabilities "Hidden" and
 * Resource declaration "Computed"). Stated once for the runtime and the
 * backends that describe what is served.
 */
export function isServed(table: Pick<TableDescriptor, "resource">, col: ColumnDescriptor): boolean {
  if (col.hidden) return false;
  return col.computed === undefined || (table.resource?.computed.includes(col.name) ?? false);
}

/** The columns of `table` that exist for a request ({@link isServed}), in declaration order. */
export function servedColumns(table: Pick<TableDescriptor, "resource" | "columns">): ColumnDescriptor[] {
  return table.columns.filter((c) => isServed(table, c));
}

/** The whole service: API metadata and every table. */
export interface ServiceDescriptor {
  title: string;
  version: string;
  securitySchemes: { name: string; scheme: string; bearerFormat?: string }[];
  /** The `auth` block (docs/decisions/1367-access-rules.md); absent: resc authenticates nobody itself. */
  auth?: AuthDescriptor;
  tables: TableDescriptor[];
}

/** A JWS algorithm a service may accept (stated once in runtime/auth/algorithms.ts). */
export type { JwtAlgorithm };

/**
 * How bearer tokens are verified (docs/decisions/1367-access-rules.md). Exactly one key source is
 * set once `resc serve` flags are applied: `secretEnv` for HS*, `jwksUrl` or `publicKeyEnv` otherwise.
 * Secrets are named by environment variable, never held here.
 */
export interface JwtDescriptor {
  algorithms: JwtAlgorithm[];
  secretEnv?: string;
  jwksUrl?: string;
  publicKeyEnv?: string;
  issuer?: string;
  audience?: string;
  /** Allowed clock skew for `exp` and `nbf`, in seconds. */
  clockToleranceSeconds: number;
}

/** A claim the access rules may name, decoded as a column of its type would be. */
export interface ClaimDescriptor {
  name: string;
  /** Where it sits in the payload, member by member (`["app_metadata", "org"]`). */
  path: string[];
  kind: ValueKind;
  array: boolean;
  /** The SQL type its value is bound as. */
  sqlType: string;
  /** May be absent (null); a required claim missing refuses the token. */
  nullable: boolean;
  /** For `kind: "enum"`: the allowed values. */
  enumValues?: string[];
}

/** The service's authentication and roles (docs/decisions/1367-access-rules.md). */
export interface AuthDescriptor {
  /** Absent when the schema declares no verification: only a `--middleware` can set a principal. */
  jwt?: JwtDescriptor;
  /** Every role the rules may name, the anonymous role included. */
  roles: string[];
  /** Where the role(s) sit in the payload, member by member; default `["role"]`. */
  roleClaim: string[];
  /** The role of a verified token whose payload names none. */
  defaultRole?: string;
  /** The role of a request without a token; absent: such a request is a 401. */
  anonymous?: string;
  /** The claims the rules name; `sub` is always one (text). */
  claims: ClaimDescriptor[];
  /**
   * Hand each request's identity to PostgreSQL, so that the database's own row-level security policies
   * apply besides the declared rules (docs/decisions/1368-database-row-level-security.md); absent: every
   * statement runs as the service's own login role, as before.
   */
  database?: DatabaseRoleDescriptor;
}

/**
 * The database-role mode of an `auth` block (docs/decisions/1368-database-row-level-security.md): every
 * statement of a request runs in a transaction that first sets, transaction-scoped,
 * `role` to the database role chosen here and the setting `claimsSetting` to the principal's claims as JSON,
 * so a policy may read `current_setting('request.jwt.claims', true)::jsonb ->> 'org'`. Role names come from
 * here, never from the token; each is sent as a bind parameter.
 */
export interface DatabaseRoleDescriptor {
  /**
   * The database role of a principal with a token: `"principal"` for the principal's own role (the first of
   * its roles the schema declares; a database role of the same name must exist and be granted to the login
   * role), or `{ fixed }` one database role for every such principal (Supabase's `authenticated`).
   */
  role: "principal" | { fixed: string };
  /**
   * The database role of an anonymous principal (docs/decisions/1367-access-rules.md, `anonymous`). Default:
   * with `role: "principal"` the anonymous role itself; with a fixed role there is none, and a schema that
   * admits anonymous requests must name one.
   */
  anonymousRole?: string;
  /** The custom setting the claims are put in, a dotted name: `request.jwt.claims` (PostgREST's) by default. */
  claimsSetting: string;
}

/** A rule's value: a claim of the principal, or a literal as written (decoded for its column at mount). */
export type RuleValue =
  { claim: string } | { literal: string | number | boolean | null | (string | number | boolean)[] };

/**
 * A row rule in the filter vocabulary (docs/decisions/1367-access-rules.md): a comparison of one of
 * the row's columns (or, with `relation`, a column of the row a forward relation names) with a claim
 * or a literal, combined with and/or/not. Compiled per request into the predicate tree, claim values
 * as bind parameters.
 */
export type Rule =
  | { kind: "cmp"; column: string; relation?: string; op: Operator; value?: RuleValue }
  | { kind: "and" | "or"; children: Rule[] }
  | { kind: "not"; child: Rule };

/** One `access` block of a table: what its roles may do (docs/decisions/1367-access-rules.md). */
export interface AccessDescriptor {
  roles: string[];
  /**
   * The operations granted, named sets expanded: `list`, `read`, `create`, `update`, `delete`,
   * `events`, and declared action names.
   */
  ops: string[];
  /** Row rules: `ops` absent applies to every granted operation; all that apply are AND-ed. */
  rows: { ops?: string[]; rule: Rule }[];
  /** The check a written row must pass; absent: the row rules of the write's operation. */
  check?: Rule;
  /** Columns set from claims on create. */
  stamps: { column: string; claim: string }[];
  /** Columns hidden from these roles. */
  hide: string[];
}

/** Package defaults for the five ceilings and the other request limits (docs/decisions/0002-default-limits.md). */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  defaultPageSize: 25,
  maxPageSize: 200,
  maxFilters: 24,
  maxSortTerms: 4,
  maxOffset: 100000,
  maxBatch: 1000,
});

/** Maximum nesting of `or`/`and`/`not` groups, the outer parameter counting as 1. */
export const MAX_GROUP_DEPTH = 3;
/** Maximum number of values in one list (`in`, `nin`, `hasany`, …). */
export const MAX_LIST_VALUES = 100;
/** Maximum size of one value, in UTF-8 bytes. */
export const MAX_VALUE_BYTES = 256;
/** Default cap of an inverse expansion (spec: Expansion rule 5). */
export const DEFAULT_EXPAND_LIMIT = 50;

/**
 * Largest request body a mounted service accepts unless the application
 * sets `maxBodyBytes`, in bytes: 1 MiB (docs/decisions/0002-default-limits.md).
 */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
