/**
 * IR → runtime descriptors (architecture: "Two models, on purpose"): what a
 * request needs at run time, computed once from a validated schema. `resc
 * dev` hands the result to the runtime in memory; the Hono backend prints
 * it as constant data.
 *
 * Optional descriptor fields are left out rather than set to undefined, so
 * the printed literal carries no noise and two builds compare equal.
 */
import {
  DEFAULT_LIMITS,
  type AccessDescriptor,
  type ActionDescriptor,
  type AuthDescriptor,
  type ClaimDescriptor,
  type DatabaseRoleDescriptor,
  type JwtDescriptor,
  type ColumnDescriptor,
  type Limits,
  type OpSet,
  type RelationDescriptor,
  type ResourceDescriptor,
  type Rule,
  type RuleValue,
  type ServiceDescriptor,
  type SortTerm,
  type TableDescriptor,
} from "../runtime/descriptor.js";
import type {
  AccessDecl,
  ActionDecl,
  AuthDecl,
  ClaimDecl,
  ColumnDecl,
  DatabaseDecl,
  FieldDecl,
  ResourceDecl,
  RuleExprDecl,
  RuleOperandDecl,
  Schema,
  SortTermDecl,
  TableDecl,
} from "../language/ir.js";
import { plainColumn } from "../language/ir.js";
import { SchemaIndex } from "./schema-index.js";
import { indexName } from "./ident.js";
import { DEFAULT_CLAIMS_SETTING } from "../runtime/auth/database-settings.js";
import { declaredRoles, grantedOps, rowRuleOps, stampedOnEveryCreate } from "./access.js";

/** The API title and version when the schema has no `api` block (docs/decisions/0208-descriptor-defaults.md). */
export function apiInfo(schema: Schema): { title: string; version: string } {
  const stem = schema.file.replace(/^.*[\\/]/, "").replace(/\.resource$/, "");
  return { title: schema.api?.title ?? stem, version: schema.api?.version ?? "0.0.0" };
}

function sortTerms(terms: readonly SortTermDecl[]): SortTerm[] {
  return terms.map((t) => ({ column: t.column, descending: t.descending }));
}

/**
 * A column as the runtime sees it: kind, SQL type, array-ness and enum
 * values resolved through domains, capabilities from its attributes. The
 * validator asks it which operators an access rule may use on a column
 * (docs/decisions/1367-access-rules.md), so rules and filters agree.
 */
export function columnDescriptor(
  index: SchemaIndex,
  table: Pick<TableDecl, "primaryKey">,
  column: ColumnDecl,
): ColumnDescriptor {
  const type = index.resolve(column.type);
  const computed = column.computed !== undefined;
  const serial = type.base.kind === "builtin" && type.base.type.serial;
  const d: ColumnDescriptor = {
    name: column.name,
    sqlType: type.castType,
    kind: type.kind,
    array: type.arrayDims > 0,
    nullable: column.nullable,
    hasDefault: column.default !== undefined || serial || computed,
    filterable: column.filterable,
    sortable: column.sortable !== undefined,
    searchable: column.searchable,
    hidden: column.hidden,
    // A computed column is an expression: never written (docs/decisions/0206-computed-columns.md).
    readOnly: column.readOnly || column.stamped || computed,
    // A key names its row in URLs and Location headers; changing it through
    // PATCH would move the row (docs/decisions/0004-keys-are-immutable.md).
    immutable: column.immutable || computed || table.primaryKey.includes(column.name),
    softDelete: column.softDelete,
  };
  if (column.dbName !== undefined && column.dbName !== column.name) d.dbName = column.dbName;
  const bits = type.base.kind === "builtin" && type.base.type.name === "bit";
  if (d.array && (type.domains.length > 0 || bits)) d.castArrayColumn = true;
  if (type.base.kind === "enum") d.enumValues = [...type.base.decl.values];
  if (column.sortable?.nulls) d.nulls = column.sortable.nulls;
  if (computed) d.computed = column.computed;
  // Declared bounds, checked before the database is asked (docs/decisions/1254-value-limits.md).
  const written = type.domains.length > 0 ? type.domains[type.domains.length - 1]!.base : column.type;
  const builtin = type.base.kind === "builtin" ? type.base.type.name : undefined;
  if (builtin === "numeric" && written.args.length > 0) {
    d.precision = written.args[0]!;
    d.scale = written.args[1] ?? 0;
  }
  if ((builtin === "varchar" || builtin === "character") && written.args.length > 0) d.maxLength = written.args[0]!;
  if (column.stamped) d.stamped = true;
  if (column.doc !== undefined) d.doc = column.doc;
  return d;
}

/**
 * The page-size default resolves below the page-size ceiling in force: a
 * resource that lowers `max_page_size` under the package default page size
 * gets pages of `max_page_size` (docs/decisions/0202-ceilings.md).
 */
export function resolveLimits(resource: ResourceDecl): Limits {
  const pick = (declared: number | undefined, fallback: number): number =>
    declared !== undefined && declared > 0 ? declared : fallback;
  const maxPageSize = pick(resource.maxPageSize, DEFAULT_LIMITS.maxPageSize);
  return {
    defaultPageSize: pick(resource.defaultPageSize, Math.min(DEFAULT_LIMITS.defaultPageSize, maxPageSize)),
    maxPageSize,
    maxFilters: pick(resource.maxFilters, DEFAULT_LIMITS.maxFilters),
    maxSortTerms: pick(resource.maxSortTerms, DEFAULT_LIMITS.maxSortTerms),
    maxOffset: pick(resource.maxOffset, DEFAULT_LIMITS.maxOffset),
    maxBatch: pick(resource.maxBatch, DEFAULT_LIMITS.maxBatch),
  };
}

/**
 * An action's input or output field as a column descriptor: its type,
 * nullability and bounds resolved as a column's are, every capability off.
 */
function fieldDescriptor(index: SchemaIndex, table: TableDecl, field: FieldDecl): ColumnDescriptor {
  const column = plainColumn(field.name, field.type, field.nullable, field.span);
  if (field.doc !== undefined) column.doc = field.doc;
  // Not a column of `table`: nothing about its key applies.
  return columnDescriptor(index, { ...table, primaryKey: [] }, column);
}

function actionDescriptor(index: SchemaIndex, table: TableDecl, action: ActionDecl): ActionDescriptor {
  const a: ActionDescriptor = {
    name: action.name,
    target: action.target,
    input: action.input.map((f) => fieldDescriptor(index, table, f)),
  };
  if (action.output) a.output = action.output.map((f) => fieldDescriptor(index, table, f));
  if (action.doc !== undefined) a.doc = action.doc;
  return a;
}

function resourceDescriptor(index: SchemaIndex, table: TableDecl, resource: ResourceDecl): ResourceDescriptor {
  const ops: OpSet = { list: false, read: false, create: false, update: false, delete: false };
  for (const op of resource.ops) ops[op] = true;
  const r: ResourceDescriptor = {
    path: resource.path,
    ops,
    defaultSort: sortTerms(resource.defaultSort),
    limits: resolveLimits(resource),
    security: resource.security.map((s) => ({ scheme: s.scheme, scopes: [...s.scopes] })),
    disableTransactions: resource.disableTransactions,
    computed: resource.computed
      ? [...resource.computed]
      : table.columns.filter((c) => c.computed !== undefined).map((c) => c.name),
  };
  if (resource.filteredWrites) r.filteredWrites = true;
  if (resource.events) r.events = true;
  if (resource.actions && resource.actions.length > 0)
    r.actions = resource.actions.map((a) => actionDescriptor(index, table, a));
  if (resource.doc !== undefined) r.doc = resource.doc;
  return r;
}

/** Per referenced table, the columns elsewhere that declare an inverse relation to it, in schema order. */
type InverseIndex = Map<string, { child: TableDecl; column: TableDecl["columns"][number] }[]>;

/** One pass over every column, so relations cost no more than the schema's size (bench/COMPILER.md: 1,000 tables). */
function inverseIndex(schema: Schema): InverseIndex {
  const out: InverseIndex = new Map();
  for (const child of schema.tables) {
    for (const column of child.columns) {
      if (!column.ref || !column.inverse) continue;
      const list = out.get(column.ref.target) ?? [];
      list.push({ child, column });
      out.set(column.ref.target, list);
    }
  }
  return out;
}

/**
 * Forward relations of `table` (its own `@ref` columns, in column order),
 * then inverse relations declared on other tables' references to it (in
 * schema order).
 * @throws Error when a reference does not resolve (the schema was not validated)
 */
function relations(index: SchemaIndex, table: TableDecl, inverses: InverseIndex): RelationDescriptor[] {
  const out: RelationDescriptor[] = [];
  for (const column of table.columns) {
    if (!column.ref) continue;
    const target = index.refTarget(column.ref);
    if (!target) throw new Error(`unresolved reference on ${table.name}.${column.name}; validate the schema first`);
    out.push({
      name: column.ref.relation,
      kind: "forward",
      target: target.table.name,
      column: column.name,
      targetColumn: target.column.name,
      expandable: column.ref.expandable,
      order: [],
    });
  }
  for (const { child, column } of inverses.get(table.name) ?? []) {
    {
      if (!column.ref || !column.inverse) continue;
      const target = index.refTarget(column.ref);
      if (!target) throw new Error(`unresolved reference on ${child.name}.${column.name}; validate the schema first`);
      const rel: RelationDescriptor = {
        name: column.inverse.name,
        kind: "inverse",
        target: child.name,
        column: column.name,
        targetColumn: target.column.name,
        expandable: column.inverse.expandable,
        order: sortTerms(column.inverse.order),
      };
      if (column.inverse.limit !== undefined) rel.limit = column.inverse.limit;
      out.push(rel);
    }
  }
  return out;
}

/** The clock skew allowed for `exp` and `nbf` when `clock_tolerance` is not given, in seconds (docs/decisions/1367-access-rules.md). */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** A claim typed as a column of its type would be: the same kind, SQL type, array-ness and enum values. */
function claimDescriptor(
  index: SchemaIndex,
  claim: Pick<ClaimDecl, "name" | "type" | "nullable" | "path">,
): ClaimDescriptor {
  // Not a column of any table: nothing about a key applies.
  const column = columnDescriptor(
    index,
    { primaryKey: [] },
    plainColumn(claim.name, claim.type, claim.nullable, claim.type.span),
  );
  const c: ClaimDescriptor = {
    name: claim.name,
    path: (claim.path ?? claim.name).split("."),
    kind: column.kind,
    array: column.array,
    sqlType: column.sqlType,
    nullable: claim.nullable,
  };
  if (column.enumValues) c.enumValues = column.enumValues;
  return c;
}

/**
 * The `database { … }` block of `auth` for the runtime (docs/decisions/1368-database-row-level-security.md):
 * its role, its anonymous role when given, and the claims setting (`request.jwt.claims` by default); keys in
 * the order of {@link DatabaseRoleDescriptor}'s fields. Undefined when the block gives no `role` (which the
 * IR builder reports as `missing-setting`).
 */
export function databaseRoleDescriptor(database: DatabaseDecl): DatabaseRoleDescriptor | undefined {
  if (database.role === undefined) return undefined;
  return {
    role: database.role === "principal" ? "principal" : { fixed: database.role.fixed },
    ...(database.anonymousRole !== undefined ? { anonymousRole: database.anonymousRole } : {}),
    claimsSetting: database.claimsSetting ?? DEFAULT_CLAIMS_SETTING,
  };
}

/**
 * The `auth` block for the runtime: roles with the anonymous one, the role
 * claim and claim paths split member by member, every claim typed (`sub`,
 * text, first when not declared), the JWT settings with the default clock
 * tolerance (docs/decisions/1367-access-rules.md), and the database-role
 * settings when declared ({@link databaseRoleDescriptor}).
 */
function authDescriptor(index: SchemaIndex, auth: AuthDecl): AuthDescriptor {
  const declared: ClaimDecl[] = [];
  for (const c of auth.claims) if (!declared.some((d) => d.name === c.name)) declared.push(c);
  const claims = declared.map((c) => claimDescriptor(index, c));
  if (!declared.some((c) => c.name === "sub")) {
    const text = { name: "text", args: [], arrayDims: 0, span: auth.span };
    claims.unshift(claimDescriptor(index, { name: "sub", type: text, nullable: false }));
  }
  // Keys in the order of AuthDescriptor's fields, so the printed literal reads as the type does; absent ones left out.
  const j = auth.jwt;
  const jwt: JwtDescriptor | undefined = j && {
    algorithms: [...j.algorithms],
    ...(j.secretEnv !== undefined ? { secretEnv: j.secretEnv } : {}),
    ...(j.jwksUrl !== undefined ? { jwksUrl: j.jwksUrl } : {}),
    ...(j.publicKeyEnv !== undefined ? { publicKeyEnv: j.publicKeyEnv } : {}),
    ...(j.issuer !== undefined ? { issuer: j.issuer } : {}),
    ...(j.audience !== undefined ? { audience: j.audience } : {}),
    clockToleranceSeconds: j.clockTolerance ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
  };
  const database = auth.database && databaseRoleDescriptor(auth.database);
  return {
    ...(jwt ? { jwt } : {}),
    roles: declaredRoles(auth),
    roleClaim: (auth.roleClaim ?? "role").split("."),
    ...(auth.defaultRole !== undefined ? { defaultRole: auth.defaultRole } : {}),
    ...(auth.anonymous !== undefined ? { anonymous: auth.anonymous } : {}),
    claims,
    ...(database ? { database } : {}),
  };
}

function ruleValue(operand: RuleOperandDecl): RuleValue {
  switch (operand.kind) {
    case "claim":
      return { claim: operand.claim };
    case "list":
      return {
        literal: operand.items.flatMap((i) =>
          i.kind === "literal" && i.value !== null ? [i.value] : i.kind === "word" ? [i.word] : [],
        ),
      };
    case "literal":
      return { literal: operand.value };
    case "word":
      // An enum value written bare (the validator refuses one on any other column): its text.
      return { literal: operand.word };
    case "column":
      throw new Error(`a rule compares a column with a claim or a literal, not with ${operand.column}; validate first`);
  }
}

/** A rule expression for the runtime: operators by their query grammar names, literals as written. */
export function ruleOf(e: RuleExprDecl): Rule {
  switch (e.kind) {
    case "cmp":
      return {
        kind: "cmp",
        column: e.left.column,
        ...(e.left.relation !== undefined ? { relation: e.left.relation } : {}),
        op: e.op,
        ...(e.right ? { value: ruleValue(e.right) } : {}),
      };
    case "not":
      return { kind: "not", child: ruleOf(e.child) };
    default:
      return { kind: e.kind, children: e.children.map(ruleOf) };
  }
}

/** One access block for the runtime: named sets expanded, row rules' operations expanded too. */
function accessDescriptor(table: TableDecl, block: AccessDecl): AccessDescriptor {
  const rows = block.rows.map((r) => {
    const ops = rowRuleOps(table, r.ops);
    return ops ? { ops, rule: ruleOf(r.expr) } : { rule: ruleOf(r.expr) };
  });
  return {
    roles: [...block.roles],
    ops: grantedOps(table, block),
    rows,
    ...(block.check ? { check: ruleOf(block.check) } : {}),
    stamps: block.stamps.map((s) => ({ column: s.column, claim: s.claim })),
    hide: [...block.hide],
  };
}

/** PostgreSQL's longest identifier, in bytes: a longer default name is truncated, so it is not predicted. */
const MAX_IDENTIFIER = 63;

/**
 * The database names of the table's primary key, unique constraints, unique indexes and foreign keys, each with
 * the columns (API names) it covers, so a 409 or 422 names them when PostgreSQL's detail does not (an expression
 * index, a role that may not see the row, docs/decisions/0312-delete-still-referenced.md). Unnamed, they are named
 * as PostgreSQL names them (`<table>_pkey`, `<table>_<columns>_key`, `<table>_<column>_fkey`, by database names),
 * as Prisma names them too; a `@@index` keeps its own name. A name PostgreSQL would truncate is left out.
 */
function constraintColumns(table: TableDecl): Record<string, string[]> | undefined {
  const tname = table.dbName ?? table.name;
  const db = (c: string): string => table.columns.find((x) => x.name === c)?.dbName ?? c;
  const out: Record<string, string[]> = {};
  const add = (name: string, columns: readonly string[]): void => {
    if (new TextEncoder().encode(name).length <= MAX_IDENTIFIER && out[name] === undefined) out[name] = [...columns];
  };
  if (table.primaryKey.length > 0) add(`${tname}_pkey`, table.primaryKey);
  for (const c of table.columns) {
    if (c.unique) add(`${tname}_${db(c.name)}_key`, [c.name]);
    if (c.ref) add(`${tname}_${db(c.name)}_fkey`, [c.name]);
  }
  for (const u of table.uniques) add(`${tname}_${u.map(db).join("_")}_key`, u);
  for (const ix of table.indexes) if (ix.unique) add(indexName(table, ix), ix.columns);
  return Object.keys(out).length > 0 ? out : undefined;
}

function tableDescriptor(index: SchemaIndex, table: TableDecl, inverses: InverseIndex): TableDescriptor {
  const t: TableDescriptor = {
    name: table.name,
    columns: table.columns.map((c) => {
      const d = columnDescriptor(index, table, c);
      // A column every create-granting block stamps is the server's, as a `@stamped` one is: never in a
      // create body, so the generated types, the CLI and OpenAPI leave it out (docs/decisions/1367-access-rules.md).
      return !d.readOnly && stampedOnEveryCreate(table, c.name) ? { ...d, readOnly: true, stamped: true } : d;
    }),
    primaryKey: [...table.primaryKey],
    relations: relations(index, table, inverses),
    scoped: table.scoped,
  };
  if (table.dbName !== undefined && table.dbName !== table.name) t.dbName = table.dbName;
  if (table.schema !== undefined) t.schema = table.schema;
  const softDelete = table.columns.find((c) => c.softDelete);
  if (softDelete) t.softDeleteColumn = softDelete.name;
  const uniqueKeys = [
    ...table.columns.filter((c) => c.unique).map((c) => [c.name]),
    ...table.uniques.map((u) => [...u]),
    ...table.indexes.filter((ix) => ix.unique && (ix.using ?? "btree") === "btree").map((ix) => [...ix.columns]),
  ];
  if (uniqueKeys.length > 0) t.uniqueKeys = uniqueKeys;
  const constraints = constraintColumns(table);
  if (constraints) t.constraints = constraints;
  if (table.resource) t.resource = resourceDescriptor(index, table, table.resource);
  if (table.access.length > 0) t.access = table.access.map((b) => accessDescriptor(table, b));
  if (table.doc !== undefined) t.doc = table.doc;
  return t;
}

/**
 * Maps a valid schema (no error from `validate`) to the runtime's
 * {@link ServiceDescriptor}: the `auth` block and each table's `access`
 * blocks when declared (docs/decisions/1367-access-rules.md), every table, in declaration order, with value
 * kinds resolved through domains, relations on both sides and ceilings
 * resolved against `DEFAULT_LIMITS` (spec: Resource declaration, Limits).
 * @throws Error when a reference does not resolve, which validation rules out
 */
export function buildDescriptor(schema: Schema): ServiceDescriptor {
  const index = new SchemaIndex(schema);
  const inverses = inverseIndex(schema);
  const { title, version } = apiInfo(schema);
  return {
    title,
    version,
    securitySchemes: (schema.api?.securitySchemes ?? []).map((s) =>
      s.bearerFormat !== undefined
        ? { name: s.name, scheme: s.scheme, bearerFormat: s.bearerFormat }
        : { name: s.name, scheme: s.scheme },
    ),
    // Absent without an auth block, so every schema without one describes the same service as before.
    ...(schema.auth ? { auth: authDescriptor(index, schema.auth) } : {}),
    tables: schema.tables.map((t) => tableDescriptor(index, t, inverses)),
  };
}
