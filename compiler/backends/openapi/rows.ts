/**
 * Per-table schemas under `components.schemas` (spec: Resources and their
 * fields, List response shape, Expanded relation shapes): the row, the
 * list item and list page, the create and update bodies, and the expanded
 * relations. Hidden columns appear in none of them: every column list comes
 * from the runtime's vocabulary, which leaves them out (spec: guarantee 2).
 * Layout: docs/decisions/1000-openapi-description.md, "Schemas".
 */
import {
  DEFAULT_EXPAND_LIMIT,
  type RelationDescriptor,
  type ServiceDescriptor,
  type TableDescriptor,
  type ColumnDescriptor,
} from "../../../runtime/descriptor.js";
import { docText } from "./markdown.js";
import { vocabulary } from "../../../runtime/query/vocabulary.js";
import { rolesHiding, stampedColumns } from "../../../runtime/access/rules.js";
import { pascalCase } from "../hono/names.js";
import type { JsonSchema } from "./types.js";
import { baseSqlType, valueSchema, type ValueUse } from "./values.js";
import type { SharedComponents } from "./components.js";

/** The schema names of one table. */
export interface SchemaNames {
  row: string;
  listItem: string;
  list: string;
  create: string;
  update: string;
  expansions: string;
  /** The `?filter=` tree. */
  filter: string;
}

/** `tasks` → `TasksRow`, `TasksList`, …: the stems follow the generated TypeScript types (hono/names.ts). */
export function schemaNames(table: TableDescriptor): SchemaNames {
  const p = pascalCase(table.name);
  return {
    row: `${p}Row`,
    listItem: `${p}ListItem`,
    list: `${p}List`,
    create: `${p}Create`,
    update: `${p}Update`,
    expansions: `${p}Expansions`,
    filter: `${p}Filter`,
  };
}

/** A `$ref` to `components.schemas[name]`. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** Tables by name, per service: a lookup per relation must not scan a thousand tables (bench/COMPILER.md). */
const tablesByName = new WeakMap<ServiceDescriptor, Map<string, TableDescriptor>>();

function findTable(service: ServiceDescriptor, name: string): TableDescriptor {
  let byName = tablesByName.get(service);
  if (!byName) tablesByName.set(service, (byName = new Map(service.tables.map((t) => [t.name, t]))));
  const t = byName.get(name);
  if (!t) throw new Error(`relation target ${name} is not a table of the service`);
  return t;
}

/** The expandable relations of `table`, in descriptor order (forward, then inverse). */
export function expandableRelations(table: TableDescriptor): RelationDescriptor[] {
  return table.relations.filter((r) => r.expandable);
}

function orderText(r: RelationDescriptor): string {
  return r.order.map((t) => (t.descending ? `-${t.column}` : t.column)).join(", ");
}

/** The schema of one expanded relation under its name (spec: Expanded relation shapes). */
function relationSchema(service: ServiceDescriptor, r: RelationDescriptor): JsonSchema {
  const target = schemaNames(findTable(service, r.target)).row;
  if (r.kind === "forward") {
    return {
      description: `?expand=${r.name}: the ${r.target} row ${r.column} refers to, or null.`,
      anyOf: [ref(target), { type: "null" }],
    };
  }
  const cap = r.limit ?? DEFAULT_EXPAND_LIMIT;
  const order = r.order.length > 0 ? `ordered by ${orderText(r)}, then the key` : "in key order";
  return {
    type: "object",
    description: `?expand=${r.name}: the ${r.target} rows whose ${r.column} refers to this row, at most ${cap} (has_more: whether there were more), ${order}.`,
    properties: {
      items: { type: "array", items: ref(target), maxItems: cap },
      has_more: { type: "boolean" },
    },
    required: ["items", "has_more"],
  };
}

/** Value schemas shorter than this (JSON characters) stay inline: a `$ref` would be as long. */
const SHARE_VALUES_FROM = 64;

/**
 * `col`'s value schema, or a `$ref` to the one shared copy of it when it is
 * long and says nothing of the column itself (no `///` comment): a date, a
 * nullable 64-bit integer or a numeric body field reads the same in every
 * table, and was most of a table's share of the document (bench/COMPILER.md,
 * decision 1320). Named after the SQL type: `NullableDateValue`, `BigintInput`.
 */
function sharedValue(col: ColumnDescriptor, use: ValueUse, shared: SharedComponents): JsonSchema {
  if (col.doc !== undefined) return valueSchema(col, use);
  // What the value schema depends on, so a thousand tables' columns are not each built and measured (bench/COMPILER.md).
  const key = `value\u0000${use}\u0000${col.sqlType}\u0000${col.kind}\u0000${col.nullable}\u0000${col.array}`;
  return shared.memo(key, () => shareLong(col, use, shared));
}

function shareLong(col: ColumnDescriptor, use: ValueUse, shared: SharedComponents): JsonSchema {
  const schema = valueSchema(col, use);
  if (JSON.stringify(schema).length < SHARE_VALUES_FROM) return schema;
  // Named after the SQL type without its modifiers: `smallint` and `integer` share a kind, not a schema.
  const type = baseSqlType(col)
    .replace(/\(.*\)/, "")
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");
  const name = `${col.nullable ? "Nullable" : ""}${type}${col.array ? "Array" : ""}${use === "body" ? "Input" : "Value"}`;
  return shared.schema(name, schema);
}

function columnProperties(
  table: TableDescriptor,
  names: readonly string[],
  use: ValueUse,
  shared: SharedComponents,
): Record<string, JsonSchema> {
  const visible = vocabulary(table).visible;
  const out: Record<string, JsonSchema> = {};
  for (const name of names) {
    const col = visible.get(name);
    if (col) out[name] = sharedValue(col, use, shared);
  }
  return out;
}

function objectSchema(
  description: string | undefined,
  properties: Record<string, JsonSchema>,
  required: readonly string[],
  extra: JsonSchema = {},
): JsonSchema {
  const s: JsonSchema = { type: "object" };
  if (description !== undefined) s.description = description;
  s.properties = properties;
  if (required.length > 0) s.required = [...required];
  return { ...s, ...extra };
}

/**
 * `<P>Row`: every visible column, all present (a read, a write's answer, an expansion target), except a
 * column the access rules hide from some roles, which their callers never receive: not required, and the
 * description names the roles (docs/decisions/1367-access-rules.md).
 */
export function rowSchema(table: TableDescriptor, shared: SharedComponents): JsonSchema {
  const v = vocabulary(table);
  const blocks = table.access ?? [];
  const hiddenFrom = v.selectable
    .map((c) => [c, rolesHiding(blocks, c)] as const)
    .filter(([, roles]) => roles.length > 0);
  const parts = table.doc === undefined ? [] : [docText(table.doc)];
  if (hiddenFrom.length > 0)
    parts.push(
      `Columns absent for the roles whose access rules hide them: ${hiddenFrom
        .map(([c, roles]) => `\`${c}\` (hidden from: ${roles.join(", ")})`)
        .join(", ")}.`,
    );
  const optional = new Set(hiddenFrom.map(([c]) => c));
  return objectSchema(
    parts.length === 0 ? undefined : parts.join("\n\n"),
    columnProperties(table, v.selectable, "row", shared),
    v.selectable.filter((c) => !optional.has(c)),
  );
}

/** `<P>Expansions`: the relations `?expand=` may add to a row, each optional. */
export function expansionsSchema(service: ServiceDescriptor, table: TableDescriptor): JsonSchema {
  const props = Object.fromEntries(expandableRelations(table).map((r) => [r.name, relationSchema(service, r)]));
  return objectSchema(`Relations added to a ${table.name} row by ?expand= (one level).`, props, []);
}

/**
 * `<P>ListItem`: a row of a list page, or of a read with `?select`. With
 * `?select` only the chosen columns come back, the primary key always, so
 * only the key is required;
 * expanded relations are those of `<P>Expansions`, referenced rather than
 * repeated (decision 1320).
 */
export function listItemSchema(table: TableDescriptor, shared: SharedComponents): JsonSchema {
  const v = vocabulary(table);
  const keys = table.primaryKey.filter((k) => v.visible.has(k));
  const columns = objectSchema(
    `A ${table.name} row of a list page: every column, or with ?select the chosen ones and the key.`,
    columnProperties(table, v.selectable, "row", shared),
    keys,
  );
  return expandableRelations(table).length > 0 ? { allOf: [columns, ref(schemaNames(table).expansions)] } : columns;
}

/**
 * `<P>List`: the list response shape (spec: List response shape): the
 * table's items and the page fields every list shares, declared once per
 * distinct page-size ceiling as `Page` (decision 1320).
 */
export function listSchema(table: TableDescriptor, shared: SharedComponents): JsonSchema {
  const maxPageSize = table.resource?.limits.maxPageSize;
  return {
    allOf: [
      objectSchema(
        `A page of ${table.name} rows.`,
        { items: { type: "array", items: ref(schemaNames(table).listItem) } },
        ["items"],
      ),
      shared.memo(`page\u0000${maxPageSize}`, () => pageSchema(maxPageSize, shared)),
    ],
  };
}

/** The shared `Page` schema of lists whose page size is at most `maxPageSize`. */
function pageSchema(maxPageSize: number | undefined, shared: SharedComponents): JsonSchema {
  const perPage: JsonSchema = { type: "integer", minimum: 1, description: "Rows per page as applied." };
  if (maxPageSize !== undefined) perPage.maximum = maxPageSize;
  const page = objectSchema(
    "The paging fields of every list page.",
    {
      page: {
        type: "integer",
        minimum: 1,
        description: "The page number, on offset-paged responses (also shown with a next cursor).",
      },
      per_page: perPage,
      has_more: {
        type: "boolean",
        description: "Whether another page follows; found by reading one row beyond the page, not by counting.",
      },
      next_cursor: {
        type: "string",
        description: "Opaque; pass it as ?cursor= (with the same sort) for the next page. Absent on the last page.",
      },
      total: {
        type: "integer",
        minimum: 0,
        description: "With ?count=exact only: the size of the whole filtered result.",
      },
    },
    ["per_page", "has_more"],
  );
  return shared.schema("Page", page);
}

/**
 * `<P>Create`: the create body (spec: Generated operations rule 5). Read-only
 * and computed columns are absent; a column is required when it is neither
 * nullable nor defaulted. Unknown fields are refused, hence
 * `additionalProperties: false`.
 */
export function createSchema(table: TableDescriptor, shared: SharedComponents): JsonSchema {
  const v = vocabulary(table);
  // A column the access rules stamp for some roles is one those roles leave out (docs/decisions/1367-access-rules.md).
  const stamped = new Set([...stampedColumns(table)].filter((c) => v.createWritable.includes(c)));
  return objectSchema(
    `A ${table.name} to create; the service sets read-only columns, and defaulted ones may be left out.` +
      (stamped.size > 0
        ? ` The service stamps ${[...stamped].map((c) => `\`${c}\``).join(", ")} for the roles whose access rules say so, which leave ${stamped.size === 1 ? "it" : "them"} out; the other roles send ${stamped.size === 1 ? "it" : "them"}.`
        : ""),
    columnProperties(table, v.createWritable, "body", shared),
    v.required.filter((c) => !stamped.has(c)),
    { additionalProperties: false },
  );
}

/**
 * `<P>Update`: the update body (spec: Generated operations rule 6): the
 * create fields minus the immutable ones, every field optional, at least
 * one present (an empty change set is a 400).
 */
export function updateSchema(table: TableDescriptor, shared: SharedComponents): JsonSchema {
  const v = vocabulary(table);
  return objectSchema(
    `The ${table.name} fields to change (at least one); null clears a nullable column.`,
    columnProperties(table, v.updateWritable, "body", shared),
    [],
    { additionalProperties: false, minProperties: 1 },
  );
}
