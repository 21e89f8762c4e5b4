/**
 * The language reference as data: one sentence (or a few) per keyword,
 * attribute, setting and type of the `.resource` language. It is the single
 * text behind the language server's hover and completion details and the
 * reference tables of docs/language.md (regenerated from here by
 * `npx tsx grammar/textmate/render-docs.ts`), so the editor and the docs never
 * disagree. Capability names in `spec` are those of the service
 * specification (docs/service-spec.md).
 */

/** One documented construct. */
export interface RefEntry {
  /** How it is written, e.g. `@sortable(nulls: last)` or `max_page_size = 100`. */
  syntax: string;
  /** What it means, in Markdown (one paragraph). */
  summary: string;
  /** The capability or field of the service specification it maps to, if any. */
  spec?: string;
}

/** A setting of a block: value form and default besides the entry. */
export interface SettingEntry extends RefEntry {
  value: string;
  default?: string;
}

/** Declaration keywords and soft keywords. */
export const KEYWORDS: Readonly<Record<string, RefEntry>> = {
  api: {
    syntax: 'api { title = "…" version = "…" security name { … } }',
    summary: "The OpenAPI title, version and HTTP security schemes of the service. At most one per file.",
    spec: "Versioning, Authentication",
  },
  auth: {
    syntax: "auth { jwt { … } roles = [member, admin] claim org uuid … }",
    summary:
      "How callers are authenticated: the JWT verification, the roles access rules name, the role of a token without one and of a request without a token, and the typed claims rules may compare with. At most one per file.",
    spec: "Authentication",
  },
  generate: {
    syntax: 'generate { dir = "generated" package = "app" }',
    summary:
      "Where `resc generate` writes the generated module, and the names of the generated client and CLI. At most one per file.",
    spec: "Generator configuration",
  },
  enum: {
    syntax: 'enum name [@map("Name")] [@schema("ns")] { a b "PG-13" }',
    summary:
      "A PostgreSQL enum type. Values are names or double-quoted strings, kept in order and exact spelling; the filter help of a column of this type lists them. `@map` and `@schema` give its name and namespace in the database.",
    spec: "Column capabilities: enum",
  },
  domain: {
    syntax: 'domain name base_type @check("VALUE > 0") [@map("Name")] [@schema("ns")]',
    summary:
      "A PostgreSQL domain: a base type with an optional CHECK (write `VALUE` for the value). It behaves like its base type. `@map` and `@schema` give its name and namespace in the database.",
  },
  table: {
    syntax: 'table name { columns  @@attributes  resource "/path" { … } }',
    summary:
      "A PostgreSQL table: columns, keys and indexes. With a `resource` block it is served over HTTP; without one it is described (DDL, relations) but not served.",
  },
  resource: {
    syntax: 'resource "/path" { ops = [crud, list] … }',
    summary: "Exposes the table as an HTTP collection at `/path`. Only the operations listed in `ops` get an endpoint.",
    spec: "Resource declaration",
  },
  security: {
    syntax: 'security bearerAuth { scheme = "bearer", bearer_format = "JWT" }',
    summary:
      "Declares an HTTP security scheme once, in the `api` block; resources name it in their `security` setting. It documents the OpenAPI description and enforces nothing.",
    spec: "Authentication 3",
  },
  jwt: {
    syntax: 'jwt { algorithms = [HS256] secret_env = "APP_JWT_SECRET" … }',
    summary:
      "Inside `auth`: how bearer tokens are verified. The algorithms are fixed here, never taken from the token; the key is named by an environment variable (`secret_env`) or fetched (`jwks_url`), never written in the schema.",
  },
  database: {
    syntax: 'database { role = principal anonymous = "anon" claims = "request.jwt.claims" }',
    summary:
      "Inside `auth`: every statement of a request runs in a transaction acting as a database role with the caller's claims (`SET LOCAL ROLE`, `request.jwt.claims`), so the database's own row-level security policies apply besides the declared rules. Role names come from the schema, never from the token.",
  },
  claim: {
    syntax: 'claim name type[?] [@path("a.b")]',
    summary:
      "Inside `auth`: a claim rules may name as `claim.name`, decoded as a column of its type would be. Required unless `?`: a token lacking it, or carrying a value that does not decode, is refused. `sub` is always a claim (text).",
  },
  access: {
    syntax: "access role[, role…] { ops = […] rows … check … stamp … hide […] }",
    summary:
      "Inside a table: grants those roles the operations in `ops`, confined by row rules. With an `auth` block, a served table without any access block is served to nobody.",
  },
  rows: {
    syntax: "rows [(op, …)] expr",
    summary:
      "Inside `access`: the rows the roles may reach. Without an operation list it applies to every granted operation; `rows(update, delete)` adds a rule for those (AND). A row outside the rule is a 404.",
  },
  check: {
    syntax: "check expr",
    summary:
      "Inside `access`: the rule a row a create, update or action writes must satisfy, or the write is a 403. Absent, the `rows` rule of the operation is the check.",
  },
  stamp: {
    syntax: "stamp column = claim.name",
    summary:
      "Inside `access`: sets the column from the claim on create; the column is not in those roles' create body.",
  },
  hide: {
    syntax: "hide [a, b]",
    summary:
      "Inside `access`: those columns are hidden from the roles, in every sense `@hidden` has; a principal with several roles sees a column any of them shows.",
  },
};

/** Settings of the `auth` block (docs/decisions/1367-access-rules.md). */
export const AUTH_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  roles: {
    syntax: "roles = [member, admin]",
    value: "list of role names",
    default: "none",
    summary: "The roles a token may carry and access blocks may name.",
  },
  role_claim: {
    syntax: 'role_claim = "app_metadata.role"',
    value: "string (a dotted path into the payload)",
    default: '`"role"`',
    summary: "Where a token's role sits: a string, or an array of strings for several roles.",
  },
  default_role: {
    syntax: "default_role = member",
    value: "a role",
    default: "none (such a token is refused)",
    summary: "The role of a verified token whose payload names none.",
  },
  anonymous: {
    syntax: "anonymous = anon",
    value: "a role name",
    default: "none (no token is a 401)",
    summary:
      "The role of a request without a token. It is declared by this setting; listing it in `roles` too is allowed.",
  },
};

/** Settings of the `jwt` block inside `auth`. */
export const JWT_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  algorithms: {
    syntax: "algorithms = [HS256]",
    value: "list of HS256 HS384 HS512 RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512 EdDSA",
    summary: "The JWS algorithms accepted, all shared-secret (HS*) or all public-key; `none` never is.",
  },
  secret_env: {
    syntax: 'secret_env = "APP_JWT_SECRET"',
    value: "string (an environment variable name)",
    summary: "The environment variable holding the HS* secret.",
  },
  jwks_url: {
    syntax: 'jwks_url = "https://idp.example/.well-known/jwks.json"',
    value: "string (an http(s) URL)",
    summary: "Where the public keys are fetched (and cached) for RS*, PS*, ES* and EdDSA.",
  },
  public_key_env: {
    syntax: 'public_key_env = "APP_JWT_PUBLIC_KEY"',
    value: "string (an environment variable name)",
    summary: "The environment variable holding a PEM (SPKI) public key.",
  },
  issuer: { syntax: 'issuer = "https://idp.example"', value: "string", summary: "The required `iss` claim." },
  audience: { syntax: 'audience = "tracker"', value: "string", summary: "The required `aud` claim." },
  clock_tolerance: {
    syntax: "clock_tolerance = 30",
    value: "whole number of seconds, not negative",
    default: "30",
    summary: "The clock skew allowed for `exp` and `nbf`.",
  },
};

/** Settings of the `database` block inside `auth` (docs/decisions/1368-database-row-level-security.md). */
export const DATABASE_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  role: {
    syntax: "role = principal",
    value: '`principal`, or a database role\'s name as a string (`"authenticated"`)',
    summary:
      "The database role of a request with a token: `principal` acts as the database role named like the first of the caller's roles the schema declares, a string as that one database role for every token.",
  },
  anonymous: {
    syntax: 'anonymous = "anon"',
    value: "string (a database role's name)",
    default:
      "with `role = principal` the anonymous role itself; with a fixed role none (required when `auth` admits anonymous requests)",
    summary: "The database role of a request without a token.",
  },
  claims: {
    syntax: 'claims = "request.jwt.claims"',
    value: "string (a custom setting: identifiers joined by dots)",
    default: '`"request.jwt.claims"`',
    summary:
      "The transaction-scoped setting the caller's declared claims, `sub` and `role` are put in, as JSON, for the policies to read.",
  },
};

/** Settings of an `access` block (its statements are in {@link KEYWORDS}). */
export const ACCESS_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  ops: {
    syntax: "ops = [reads, create, events]",
    value:
      "list of `list read create update delete`, the sets `reads`, `crud` and `all`, `events` and declared action names",
    default: "none granted",
    summary:
      "The operations the roles may perform; each must be one the resource serves. `all` is every operation it serves, its feed and its actions.",
  },
};

/** Column attributes, by name without `@`. */
export const COLUMN_ATTRIBUTE_DOCS: Readonly<Record<string, RefEntry>> = {
  primary_key: {
    syntax: "@primary_key",
    summary:
      "The table's primary key (one column; see `@@primary_key` for composite keys). It is the `/{id}` of read, update and delete, and the last tiebreaker of every ordering.",
  },
  unique: { syntax: "@unique", summary: "A UNIQUE constraint on the column; a violation answers 409." },
  default: {
    syntax: "@default(value)",
    summary:
      'The database supplies the value when the create body omits it, so the field is optional on create. A literal, an enum value, `identity`, a call such as `now()` (kept as written) or `sql("…")`.',
    spec: "default",
  },
  filterable: {
    syntax: "@filterable",
    summary:
      "The column gets a filter parameter `?col=op.value` and a CLI flag; without it, filtering on the column is a 400.",
    spec: "Filterable",
  },
  sortable: {
    syntax: "@sortable[(nulls: first|last)]",
    summary:
      "Accepted in `sort` and `default_sort`. `nulls: last` (or `first`) places nulls last (first) in both directions; without it the database default applies.",
    spec: "Sortable, NullsLast",
  },
  searchable: {
    syntax: "@searchable",
    summary: "Included in `?search=`: a case-insensitive substring match across every searchable column.",
    spec: "Searchable",
  },
  hidden: {
    syntax: "@hidden",
    summary:
      "Never served, projected, filtered, sorted or written: absent from every response, expansion, CLI flag and write body.",
    spec: "Hidden",
  },
  read_only: {
    syntax: "@read_only",
    summary:
      "Not in the create body (the handler clears it); only a hook sets it, such as a tenant id stamped by BeforeCreate.",
    spec: "read-only",
  },
  stamped: {
    syntax: "@stamped",
    summary:
      "Set by the application's BeforeCreate hook on every create: not in the create body, and the resource mounts only once that hook is registered.",
  },
  immutable: { syntax: "@immutable", summary: "Not in the update body: set once, on create.", spec: "immutable" },
  renamed_from: {
    syntax: "@renamed_from(old_name)",
    summary:
      "The column's previous name: `resc migrate diff` writes RENAME COLUMN, keeping its values, instead of a drop and an add. Remove it once the migration is applied everywhere.",
  },
  ignore: {
    syntax: "@ignore",
    summary:
      "The column is the database's alone: `resc sql` creates it and the drift gate compares it, but resc never reads or writes it (not served, not in any body, not in the client or the CLI). A required one must be filled by the database (a default or a trigger). It may carry only `@map`, `@default`, `@unique`, `@check` and `@renamed_from`.",
  },
  map: {
    syntax: '@map("createdAt")',
    summary:
      "The column's name in the database, exactly as stored (quoted, case kept), when it is not the column's name here: SQL uses it, the API, the client, the CLI and hooks use the name here.",
  },
  computed: {
    syntax: '@computed("sql expression")',
    summary:
      "Not stored: computed from the row when selected. A searchable computed text column joins the search as an expression.",
    spec: "computed",
  },
  soft_delete: {
    syntax: "@soft_delete",
    summary:
      "A non-null value marks the row removed: DELETE sets it to `now()` and resc hides marked rows from every read, with no hook needed (decision 1367).",
    spec: "SoftDelete",
  },
  check: { syntax: '@check("sql condition")', summary: "A CHECK constraint on the table; a violation answers 422." },
  ref: {
    syntax: "@ref(relation, table[, expandable][, column: col])",
    summary:
      "A foreign key to `table`'s primary key (or `column`), forming the forward relation `relation`. With `expandable`, `?expand=relation` returns the target row under that name.",
    spec: "Ref, Expandable",
  },
  inverse: {
    syntax: "@inverse(name[, expandable][, order: [a, -b]][, limit: 20])",
    summary:
      "On a `@ref` column: declares the reverse relation `name` on the target table. With `expandable` the collection of children can be expanded, ordered by `order`, capped at `limit` (default 50).",
    spec: "Inverse, InverseExpandable",
  },
};

/** Table attributes, by name without `@@`. */
export const TABLE_ATTRIBUTE_DOCS: Readonly<Record<string, RefEntry>> = {
  primary_key: {
    syntax: '@@primary_key([a, b][, index: "name"])',
    summary:
      'A composite primary key (not together with an inline `@primary_key`). Its rows are read, updated and deleted at one path segment per key column, in key order (`/film-actors/{film_id}/{actor_id}`; decision 1376). With `index: "name"` the key is that UNIQUE index over NOT NULL columns, not a PRIMARY KEY constraint: `resc sql` creates the index and the drift gate proposes no primary key (`resc pull` writes it for a table such as Prisma\'s `_AToB`, which has none).',
  },
  index: {
    syntax: '@@index([a, b][, using: gin][, unique: true][, name: "idx"])',
    summary:
      "An index; `using` names the access method (btree by default). A filterable array column needs a GIN index; a reference should lead some index.",
  },
  unique: { syntax: "@@unique([a, b])", summary: "A multi-column UNIQUE constraint." },
  renamed_from: {
    syntax: "@@renamed_from(old_name)",
    summary:
      "The table's previous name: `resc migrate diff` writes RENAME TO, keeping its rows, instead of a drop and a create. Remove it once the migration is applied everywhere.",
  },
  map: {
    syntax: '@@map("UserAccount")',
    summary:
      "The table's name in the database, exactly as stored (quoted, case kept), when it is not the table's name here. `resc pull` writes it for names such as Prisma's or Entity Framework's.",
  },
  schema: {
    syntax: '@@schema("billing")',
    summary:
      "The PostgreSQL schema (namespace) the table lives in; without it, the connection's search path (`public`). One file may describe tables of several schemas; `resc sql` creates each one.",
  },
  scoped: {
    syntax: "@@scoped",
    summary: "The resource does not mount until a BeforeQuery hook confines it (tenant scope).",
    spec: "Scoped",
  },
};

/** Settings of the `resource` block. */
export const RESOURCE_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  ops: {
    syntax: "ops = [crud, list]",
    value:
      "list of `list read create update delete`, and the sets `crud` (read create update delete) and `reads` (read list)",
    default: "none exposed",
    summary:
      "The operations the resource exposes. An operation not listed has no endpoint, no client function and no CLI subcommand.",
    spec: "Ops",
  },
  default_sort: {
    syntax: "default_sort = [-created_at, title]",
    value: "list of sortable columns, `-` for descending",
    default: "primary-key order",
    summary: "The ordering of a list without `?sort`; the primary key is appended as the final tiebreaker.",
    spec: "DefaultSort",
  },
  default_page_size: {
    syntax: "default_page_size = 25",
    value: "whole number",
    default: "25",
    summary: "The page size when `per_page` is absent; 0 takes the default.",
    spec: "DefaultPageSize",
  },
  max_page_size: {
    syntax: "max_page_size = 100",
    value: "whole number",
    default: "200",
    summary: "The ceiling on `per_page`; a larger request receives the maximum. 0 takes the default.",
    spec: "MaxPageSize",
  },
  max_filters: {
    syntax: "max_filters = 10",
    value: "whole number",
    default: "24",
    summary: "The ceiling on predicates per request; 0 takes the default.",
    spec: "MaxFilters",
  },
  max_sort_terms: {
    syntax: "max_sort_terms = 3",
    value: "whole number",
    default: "4",
    summary: "The ceiling on sort terms per request; 0 takes the default.",
    spec: "MaxSortTerms",
  },
  max_offset: {
    syntax: "max_offset = 5000",
    value: "whole number",
    default: "100000",
    summary: "The ceiling on offset paging depth; beyond it a request is told to use `cursor`. 0 takes the default.",
    spec: "MaxOffset",
  },
  max_batch: {
    syntax: "max_batch = 500",
    value: "whole number",
    default: "1000",
    summary:
      "The most rows one create request may carry as a JSON array (created in one transaction, all or none). 0 takes the default.",
  },
  security: {
    syntax: 'security = [bearerAuth, oauth: ["read"]]',
    value: "list of scheme names, each optionally with scopes",
    default: "none",
    summary:
      "Security requirements placed on every operation in the OpenAPI description; documents only, enforces nothing.",
    spec: "Security",
  },
  disable_transactions: {
    syntax: "disable_transactions = true",
    value: "`true` / `false`",
    default: "`false`",
    summary: "Opts out of wrapping writes in a transaction (an AfterCommit hook then fails at request time).",
    spec: "DisableTransactions",
  },
  filtered_writes: {
    syntax: "filtered_writes = true",
    value: "`true` / `false`",
    default: "`false`",
    summary:
      "Also serves PATCH and DELETE on the collection, changing every row the list filters match (at least one filter; `Prefer: max-affected=N` bounds it), where the resource exposes update and delete.",
  },
  events: {
    syntax: "events = true",
    value: "`true` / `false`",
    default: "`false`",
    summary:
      "Captures every change of the table (by resc or by anyone else) with a trigger and serves them as Server-Sent Events at `GET /<resource>/events`, filtered like a list and scoped like one; webhooks deliver the same events.",
  },
  computed: {
    syntax: "computed = [summary]",
    value: "list of computed columns",
    default: "all of them",
    summary: "Which computed columns this resource computes.",
    spec: "Computed",
  },
};

/** Settings of the `api` block (besides `security NAME { … }`). */
export const API_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  title: { syntax: 'title = "Task Tracker"', value: "string", summary: "The OpenAPI title.", spec: "Versioning" },
  version: { syntax: 'version = "1.4.0"', value: "string", summary: "The OpenAPI version string.", spec: "Versioning" },
  license: {
    syntax: 'license = "MIT"',
    value: "string (an SPDX identifier)",
    summary: "The licence of the API, written to the OpenAPI info.license.",
    spec: "Versioning",
  },
};

/** Settings of a `security NAME { … }` scheme. */
export const SECURITY_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  scheme: {
    syntax: 'scheme = "bearer"',
    value: "string (required)",
    summary: "The HTTP authentication scheme, e.g. `bearer`.",
  },
  bearer_format: {
    syntax: 'bearer_format = "JWT"',
    value: "string",
    summary: "A hint of the bearer token's format, e.g. `JWT`.",
  },
};

/** Settings of the `generate` block. */
export const GENERATE_SETTING_DOCS: Readonly<Record<string, SettingEntry>> = {
  dir: {
    syntax: 'dir = "generated"',
    value: "string",
    summary: "Output root, relative to the schema file.",
    spec: "Dir",
  },
  package: {
    syntax: 'package = "tracker"',
    value: "string",
    summary: "Package name of the generated resource code.",
    spec: "Package",
  },
  cli_dir: {
    syntax: 'cli_dir = "cli"',
    value: "string",
    summary: "Directory (under `dir`) for the typed client and the command tree; omit for none.",
    spec: "CLIDir",
  },
  cli_name: {
    syntax: 'cli_name = "tracker"',
    value: "string",
    summary: "The binary's name and the prefix of its environment variables (`TRACKER_BASE_URL`).",
    spec: "CLIName",
  },
  client_dir: {
    syntax: 'client_dir = "client"',
    value: "string",
    summary: "Directory for the typed client only, used when `cli_dir` is absent.",
    spec: "ClientDir",
  },
};

/** Operation names accepted in `ops`. */
export const OP_DOCS: Readonly<Record<string, string>> = {
  list: "`GET /<resource>`: the query grammar (filters, sort, search, paging, expansion).",
  read: "`GET /<resource>/{id}`: one row; the only query parameter is `expand`.",
  create: "`POST /<resource>`: the create body; returns the stored row.",
  update: "`PATCH /<resource>/{id}`: the update body, every field optional.",
  delete: "`DELETE /<resource>/{id}`: a real delete.",
  crud: "read, create, update and delete.",
  reads: "read and list.",
};

/** Operation names an `access` block's `ops` takes besides those of {@link OP_DOCS}. */
export const ACCESS_OP_DOCS: Readonly<Record<string, string>> = {
  all: "every operation the resource serves, `events` when it has a change feed, and every declared action.",
  events: "`GET /<resource>/events`: the change feed, and the role's own webhooks.",
};

/** How each built-in type (canonical name) travels in JSON (docs/http.md). */
export const TYPE_DOCS: Readonly<Record<string, string>> = {
  smallint: "16-bit integer; a JSON number.",
  integer: "32-bit integer; a JSON number.",
  bigint: "64-bit integer; a JSON number.",
  numeric: "Exact decimal, `numeric(p, s)`; travels as a JSON string so no precision is lost.",
  real: "Single-precision float; a JSON number.",
  "double precision": "Double-precision float; a JSON number.",
  text: "Text of any length; a JSON string.",
  varchar: "Text with a length limit, `varchar(n)`; a JSON string.",
  character: "Fixed-length text, `character(n)`; a JSON string.",
  citext: "Case-insensitive text (extension); a JSON string.",
  boolean: "true or false.",
  date: "A calendar date; travels as an RFC 3339 timestamp at UTC midnight.",
  time: "Time of day without zone; a JSON string.",
  timetz: "Time of day with zone; a JSON string.",
  timestamp: "Date and time without zone; a JSON string.",
  timestamptz: "Date and time with zone; travels as RFC 3339 in UTC.",
  interval: "A duration; a JSON string.",
  uuid: "A UUID; a JSON string.",
  json: "A JSON document, served as JSON.",
  jsonb: "A binary JSON document; filterable with the document-containment operators `hasdoc`, `nhasdoc`.",
  bytea: "Bytes; travel as base64.",
  tsvector: "A full-text search document; a JSON string.",
  tsquery: "A full-text search query; a JSON string.",
  inet: "An IPv4 or IPv6 host address; a JSON string.",
  cidr: "An IPv4 or IPv6 network; a JSON string.",
  macaddr: "A MAC address; a JSON string.",
  money: "A currency amount; a JSON string.",
  xml: "An XML document; a JSON string.",
  oid: "An object identifier; a JSON number.",
  point: "A geometric point; a JSON string.",
  bit: "A fixed-length bit string; a JSON string.",
  varbit: "A variable-length bit string; a JSON string.",
  serial: "An auto-numbered integer (`integer` with a sequence default).",
  smallserial: "An auto-numbered smallint.",
  bigserial: "An auto-numbered bigint.",
};

/** Hover text of an entry: the syntax as code, the summary, the spec capability. */
export function entryMarkdown(e: RefEntry & { value?: string; default?: string }): string {
  const parts = ["```resource\n" + e.syntax + "\n```", e.summary];
  if (e.value !== undefined)
    parts.push(`Value: ${e.value}.` + (e.default !== undefined ? ` Default: ${e.default}.` : ""));
  if (e.spec !== undefined) parts.push(`Spec: ${e.spec}.`);
  return parts.join("\n\n");
}
