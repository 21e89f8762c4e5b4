/**
 * The intermediate representation (IR): what the user wrote in a `.resource`
 * file, as plain typed data with source locations.
 *
 * The grammar (`grammar/to-ir.ts`) produces it, the validator
 * (`compiler/validate`) checks it, and every backend reads it. It is never
 * seen by the runtime: `compiler/descriptor.ts` turns a validated IR into the
 * runtime's descriptors. Values here are as written (a ceiling may be
 * negative); the validator decides what is legal.
 */

import type { JwtAlgorithm } from "../runtime/descriptor.js";

/** A region of a source file. Lines and columns are 1-based; `offset` and `length` count UTF-16 code units. */
export interface Span {
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  offset: number;
  length: number;
}

/** How serious a diagnostic is: an error stops compilation, a warning (lint) does not. */
export type Severity = "error" | "warning";

/**
 * One problem found in a schema, by the parser, the IR builder or the
 * validator. `code` is a stable kebab-case identifier (for example
 * `unknown-attribute`, `array-sortable`) that tests and editors may key on.
 */
export interface Diagnostic {
  severity: Severity;
  code: string;
  message: string;
  span: Span;
}

/** The whole schema of one `.resource` file. */
export interface Schema {
  /** The file name the schema was read from, as given to the parser. */
  file: string;
  api?: ApiDecl;
  /** The `auth { … }` block (docs/decisions/1367-access-rules.md); absent: resc authenticates nobody itself. */
  auth?: AuthDecl;
  generate?: GenerateDecl;
  enums: EnumDecl[];
  domains: DomainDecl[];
  tables: TableDecl[];
}

/** The `api { … }` block: OpenAPI title, version and security schemes (spec: Versioning, Authentication). */
export interface ApiDecl {
  title?: string;
  version?: string;
  /** `license = "MIT"`: an SPDX licence identifier, written to the OpenAPI `info.license`. */
  license?: string;
  securitySchemes: SecuritySchemeDecl[];
  doc?: string;
  span: Span;
}

/** `security bearerAuth { scheme = "bearer", bearer_format = "JWT" }`: an HTTP security scheme, declared once. */
export interface SecuritySchemeDecl {
  name: string;
  /** OpenAPI scheme type; only `http` is expressible today. */
  type: "http";
  /** The HTTP auth scheme, for example `bearer`. */
  scheme: string;
  bearerFormat?: string;
  span: Span;
}

/** A JWS algorithm an `auth` block may fix (`algorithms = [RS256]`), as the runtime states them. */
export type { JwtAlgorithm };

/** `jwt { … }` inside `auth`: how bearer tokens are verified (docs/decisions/1367-access-rules.md). */
export interface JwtDecl {
  algorithms: JwtAlgorithm[];
  /** `secret_env`: the environment variable holding the HS* secret. */
  secretEnv?: string;
  /** `jwks_url`: where the verification keys are fetched (RS/PS/ES/EdDSA). */
  jwksUrl?: string;
  /** `public_key_env`: the environment variable holding a PEM (SPKI) public key. */
  publicKeyEnv?: string;
  issuer?: string;
  audience?: string;
  /** `clock_tolerance`, in seconds. */
  clockTolerance?: number;
  /** Spans of each setting's value by key, for diagnostics. */
  settingSpans: Record<string, Span>;
  span: Span;
}

/**
 * `database { … }` inside `auth`: the database role and claims setting each request's statements act with, so
 * PostgreSQL's own row-level security policies apply besides the declared rules
 * (docs/decisions/1368-database-row-level-security.md). Absent settings are left out; the descriptor fills
 * the defaults.
 */
export interface DatabaseDecl {
  /**
   * `role = principal` (each principal acts as the database role named like its role) or `role = "name"` (one
   * database role for every token); absent when not given (or not of either form, already reported).
   */
  role?: "principal" | { fixed: string };
  /** `anonymous = "anon"`: the database role of a request without a token. */
  anonymousRole?: string;
  /** `claims = "request.jwt.claims"`: the custom setting the claims document is put in. */
  claimsSetting?: string;
  /** Spans of each setting's value by key, for diagnostics. */
  settingSpans: Record<string, Span>;
  span: Span;
}

/** `claim org uuid @path("app_metadata.org")`: a claim the access rules may name, with its type. */
export interface ClaimDecl {
  name: string;
  type: TypeRef;
  /** `?`: the claim may be absent (null); otherwise a token without it is refused. */
  nullable: boolean;
  /** `@path("a.b")`: where the claim sits in the payload; absent: the top-level member `name`. */
  path?: string;
  /** The span of the `@path` argument, when given. */
  pathSpan?: Span;
  span: Span;
  /** The span of the claim's name. */
  nameSpan: Span;
}

/** The `auth { … }` block (docs/decisions/1367-access-rules.md). */
export interface AuthDecl {
  jwt?: JwtDecl;
  /** `database { … }`: the database-role mode (docs/decisions/1368-database-row-level-security.md). */
  database?: DatabaseDecl;
  /** `roles = [..]` as written, duplicates removed (the IR builder reports them). */
  roles: string[];
  /** The span of each of `roles`, index for index. */
  roleSpans: Span[];
  /** `role_claim`: a dotted path into the payload; absent: `role`. */
  roleClaim?: string;
  defaultRole?: string;
  /** `anonymous`: the role of a request with no token; absent means such a request is a 401. */
  anonymous?: string;
  claims: ClaimDecl[];
  /** Spans of each setting's value by key, for diagnostics. */
  settingSpans: Record<string, Span>;
  span: Span;
}

/**
 * An operand of a rule: a column of the row (`relation` set for `list.org_id`), a claim, a literal, or a bare
 * name (`status = open`), which only an enum column takes, as one of its values (the validator judges it).
 */
export type RuleOperandDecl =
  | { kind: "column"; column: string; relation?: string; span: Span }
  | { kind: "claim"; claim: string; span: Span }
  | { kind: "literal"; value: string | number | boolean | null; span: Span }
  | { kind: "word"; word: string; span: Span }
  | { kind: "list"; items: RuleOperandDecl[]; span: Span };

/**
 * A rule expression in the filter vocabulary: a comparison of a column with
 * a claim or literal (`org_id = claim.org`), combined with and/or/not.
 * `op` is the query grammar's operator (`=` is `eq`, `is null` is `isnull`).
 */
export type RuleExprDecl =
  | {
      kind: "cmp";
      left: Extract<RuleOperandDecl, { kind: "column" }>;
      op: "eq" | "ne" | "lt" | "lte" | "gt" | "gte" | "in" | "nin" | "has" | "isnull" | "notnull";
      right?: RuleOperandDecl;
      /** The operator as written (`=`, `not in`, `is not null`'s words), for diagnostics about it. */
      opSpan: Span;
      span: Span;
    }
  | { kind: "and" | "or"; children: RuleExprDecl[]; span: Span }
  | { kind: "not"; child: RuleExprDecl; span: Span };

/** `rows(update, delete) author_id = claim.sub`: a row rule; `ops` absent means every granted operation. */
export interface RowRuleDecl {
  ops?: string[];
  /** The span of each of `ops`, index for index. */
  opSpans?: Span[];
  expr: RuleExprDecl;
  span: Span;
}

/** `stamp org_id = claim.org`: a column set from a claim on create. */
export interface StampDecl {
  column: string;
  claim: string;
  columnSpan: Span;
  claimSpan: Span;
  span: Span;
}

/** `access member, admin { … }` inside a table (docs/decisions/1367-access-rules.md). */
export interface AccessDecl {
  roles: string[];
  /** The span of each of `roles`, index for index. */
  roleSpans: Span[];
  /** As written: operations, named sets (`reads`, `crud`, `all`), action names, `events`. */
  ops: string[];
  /** The span of each of `ops`, index for index. */
  opSpans: Span[];
  rows: RowRuleDecl[];
  check?: RuleExprDecl;
  stamps: StampDecl[];
  hide: string[];
  /** The span of each of `hide`, index for index. */
  hideSpans: Span[];
  doc?: string;
  /** Spans by statement: `ops` (its value), `check` (its expression), `hide` (its list). */
  settingSpans: Record<string, Span>;
  span: Span;
}

/** The `generate { … }` block (spec: Generator configuration). Paths are as written, relative to the schema file. */
export interface GenerateDecl {
  dir?: string;
  package?: string;
  cliDir?: string;
  cliName?: string;
  clientDir?: string;
  span: Span;
}

/** `enum name { a b c }`: a PostgreSQL enum type. Values keep their order and exact spelling. */
export interface EnumDecl {
  name: string;
  /** `@map("Role")`: the type's name in the database when it differs from `name` (docs/decisions/1257-database-names.md). */
  dbName?: string;
  /** `@schema("billing")`: the namespace it lives in; absent means the connection's search path (`public`). */
  schema?: string;
  values: string[];
  doc?: string;
  span: Span;
}

/** `domain year integer @check("VALUE >= 1901")`: a PostgreSQL domain over a base type. */
export interface DomainDecl {
  name: string;
  /** `@map("Name")`: the domain's name in the database when it differs from `name` (docs/decisions/1257-database-names.md). */
  dbName?: string;
  /** `@schema("billing")`: the namespace it lives in; absent means the search path (`public`). */
  schema?: string;
  base: TypeRef;
  /** The CHECK expression, as SQL text, without the `CHECK` keyword. */
  check?: string;
  doc?: string;
  span: Span;
}

/**
 * A column's type as written. `name` is the canonical PostgreSQL spelling of
 * a built-in type (`integer`, `character varying`, `timestamp with time zone`
 * are canonicalized to `integer`, `varchar`, `timestamptz`), or the name of a
 * declared enum or domain.
 */
export interface TypeRef {
  name: string;
  /** Type modifiers, e.g. `[5, 2]` for `numeric(5,2)`, `[20]` for `character(20)`. */
  args: number[];
  /** Number of array dimensions written (`text[]` is 1). */
  arrayDims: number;
  span: Span;
}

/** The value of `@default(…)`. */
export type DefaultValue =
  /** A literal: `@default(0)`, `@default("x")`, `@default(true)`, `@default(null)`. */
  | { kind: "literal"; value: string | number | boolean | null }
  /** A bare identifier, read as an enum value: `@default(todo)`. */
  | { kind: "enum-value"; value: string }
  /** `@default(identity)` / `@default(autoincrement())`: the database numbers the rows. */
  | { kind: "identity" }
  /** A SQL function call or raw expression: `@default(now())`, `@default(sql("nextval('s')"))`. */
  | { kind: "sql"; sql: string };

/** One sort term: a column in schema spelling and a direction. */
export interface SortTermDecl {
  column: string;
  descending: boolean;
  span: Span;
}

/** `@inverse(name, expandable, order: [a, -b], limit: 20)` on a reference column. */
export interface InverseDecl {
  name: string;
  expandable: boolean;
  order: SortTermDecl[];
  limit?: number;
  span: Span;
}

/** `@ref(relation, target_table, expandable)` (optionally `column: target_column`). */
export interface RefDecl {
  relation: string;
  target: string;
  /** The referenced column of the target; absent means the target's single-column primary key. */
  targetColumn?: string;
  expandable: boolean;
  span: Span;
}

/**
 * Where a column attribute appeared, kept so the validator can point at the
 * attribute itself rather than the whole column.
 */
export interface AttributeUse {
  name: string;
  span: Span;
}

/** One column of a table, with everything it may do over HTTP (spec: Column capabilities). */
export interface ColumnDecl {
  name: string;
  /**
   * `@map("createdAt")`: the column's name in the database when it differs
   * from `name`, the name the API, the client and hooks use
   * (docs/decisions/1257-database-names.md).
   */
  dbName?: string;
  type: TypeRef;
  nullable: boolean;
  default?: DefaultValue;
  primaryKey: boolean;
  unique: boolean;
  filterable: boolean;
  /** Present when `@sortable`; `nulls` when a placement is declared. */
  sortable?: { nulls?: "first" | "last" };
  searchable: boolean;
  hidden: boolean;
  readOnly: boolean;
  /**
   * `@stamped`: the application's BeforeCreate hook sets it on every create.
   * Not in the create body (as `@read_only`); the resource mounts only once
   * that hook is registered (docs/decisions/1253-create-body-completeness.md).
   */
  stamped: boolean;
  immutable: boolean;
  /** `@computed("sql expression")`: not stored; computed from the row when selected. */
  computed?: string;
  /** `@soft_delete`: a non-null value marks the row as removed. */
  softDelete: boolean;
  ref?: RefDecl;
  /** Only meaningful together with `ref`; the validator refuses it otherwise. */
  inverse?: InverseDecl;
  /** `@renamed_from(old)`: the column's previous name, so `resc migrate diff` renames it instead of dropping it. */
  renamedFrom?: string;
  /** `@check("sql")`: a CHECK constraint, emitted by the SQL backend. */
  check?: string;
  doc?: string;
  attributes: AttributeUse[];
  span: Span;
}

/** `@@index([a, b], using: gin, unique: true, name: "idx")`. */
export interface IndexDecl {
  name?: string;
  columns: string[];
  /** Access method; absent means btree. */
  using?: string;
  unique: boolean;
  span: Span;
}

/** The operations a resource can expose (spec: Resource declaration, Ops). */
export type Op = "list" | "read" | "create" | "update" | "delete";

/** One security requirement: scheme name → scopes. */
export interface SecurityRequirementDecl {
  scheme: string;
  scopes: string[];
  span: Span;
}

/**
 * One input or output field of a declared action: a name and a type as a
 * column has them (built-ins, enums, domains, arrays, `?` for nullable), and
 * nothing else (docs/decisions/1334-declared-actions.md).
 */
export interface FieldDecl {
  name: string;
  type: TypeRef;
  nullable: boolean;
  doc?: string;
  span: Span;
}

/** Where an action is served: on one row (`POST /<resource>/{id}/<action>`) or on the collection (`POST /<resource>/<action>`). */
export type ActionTarget = "item" | "collection";

/**
 * `action return { staff_id integer }` inside a resource block: a named
 * operation the application implements in its hooks module
 * (docs/decisions/1334-declared-actions.md). `@collection` makes it a
 * collection action; `returns { … }` declares its output (absent: an item
 * action answers the row as a read returns it, a collection action 204).
 */
export interface ActionDecl {
  name: string;
  target: ActionTarget;
  input: FieldDecl[];
  output?: FieldDecl[];
  doc?: string;
  span: Span;
  nameSpan: Span;
}

/**
 * The `resource "/path" { … }` block inside a table. Ceilings are as written
 * (0 or absent takes the package default; negative is refused by the
 * validator).
 */
export interface ResourceDecl {
  path: string;
  /** Named sets (`crud`, `reads`) are expanded; duplicates removed; in the order list, read, create, update, delete. */
  ops: Op[];
  defaultSort: SortTermDecl[];
  defaultPageSize?: number;
  maxPageSize?: number;
  maxFilters?: number;
  maxSortTerms?: number;
  maxOffset?: number;
  /** `max_batch`: the most rows one create request may carry (docs/decisions/1330-bulk-create.md). */
  maxBatch?: number;
  security: SecurityRequirementDecl[];
  disableTransactions: boolean;
  /** `filtered_writes = true`: PATCH and DELETE on the collection with list filters (docs/decisions/1333-filtered-writes.md). */
  filteredWrites?: boolean;
  /** `events = true`: changes are captured and served at `GET /<resource>/events` (docs/decisions/1337-change-feed.md). */
  events?: boolean;
  /** Which computed columns this resource computes; absent means all of them. */
  computed?: string[];
  /** Declared actions in source order; absent when none is declared (docs/decisions/1334-declared-actions.md). */
  actions?: ActionDecl[];
  doc?: string;
  span: Span;
  /** Spans of each setting by key (`ops`, `max_page_size`, …) for precise diagnostics. */
  settingSpans: Record<string, Span>;
}

/** One table: storage (columns, keys, indexes) and, optionally, its exposure. */
export interface TableDecl {
  name: string;
  /** `@@map("UserAccount")`: the table's name in the database when it differs from `name` (docs/decisions/1257-database-names.md). */
  dbName?: string;
  /** `@@schema("billing")`: the namespace the table lives in; absent means the search path (`public`). */
  schema?: string;
  /** `@@renamed_from(old)`: the table's previous name, so `resc migrate diff` renames it instead of dropping it. */
  renamedFrom?: string;
  columns: ColumnDecl[];
  /**
   * Columns marked `@ignore`: the database's, in the DDL and compared by the drift gate, but never read or
   * written by resc (not served, not in any body, absent from the client and the CLI). Kept apart from
   * `columns`, so every backend but the SQL one never sees them (docs/decisions/1259-ignored-columns.md).
   */
  ignored: ColumnDecl[];
  /** The primary key columns, from inline `@primary_key` or `@@primary_key([a, b])`. */
  primaryKey: string[];
  /**
   * From `@@primary_key([a, b], index: "name")`: the key is a UNIQUE index of that name over NOT NULL
   * columns, not a PRIMARY KEY constraint (a Prisma many-to-many table; docs/decisions/1376-composite-key-address.md).
   */
  primaryKeyIndex?: string;
  indexes: IndexDecl[];
  /** `@@unique([a, b])` constraints. */
  uniques: string[][];
  /** `@@scoped`: does not mount until a BeforeQuery hook (or an `access` rule) confines it. */
  scoped: boolean;
  /** `access` blocks in source order (docs/decisions/1367-access-rules.md); empty when none. */
  access: AccessDecl[];
  resource?: ResourceDecl;
  doc?: string;
  span: Span;
  /** Span of the table's name, for diagnostics about the table as a whole. */
  nameSpan: Span;
}

/**
 * A column with a name, a type and nullability and every capability off:
 * what a column is before its attributes are applied, and what an action's
 * field is when described as a column (docs/decisions/1334-declared-actions.md).
 */
export function plainColumn(name: string, type: TypeRef, nullable: boolean, span: Span): ColumnDecl {
  return {
    name,
    type,
    nullable,
    primaryKey: false,
    unique: false,
    filterable: false,
    searchable: false,
    hidden: false,
    readOnly: false,
    stamped: false,
    immutable: false,
    softDelete: false,
    attributes: [],
    span,
  };
}

/** Every column the database has: served ones and `@ignore` ones, in source order (the DDL's order). */
export function storedColumns(table: TableDecl): ColumnDecl[] {
  if (table.ignored.length === 0) return table.columns;
  return [...table.columns, ...table.ignored].sort((a, b) => a.span.offset - b.span.offset);
}

/** The result of parsing: a schema built as far as possible, and every diagnostic. Parsing never throws on user input. */
export interface ParseResult {
  schema: Schema;
  diagnostics: Diagnostic[];
}
