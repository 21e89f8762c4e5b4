/**
 * The schema type of the generated module: per table, its columns as
 * `ColumnType<type, kind, flags>` (which resolves to `{ type; kind;
 * nullable; array; filterable; sortable; computed }`), its
 * expandable relations and its primary key, as the query builder
 * (runtime/builder) reads them (docs/decisions/0602-query-builder.md).
 * Hidden columns are left out, so generated code spells none (spec:
 * guarantee 2).
 */
import {
  servedColumns,
  type ColumnDescriptor,
  type ServiceDescriptor,
  type TableDescriptor,
} from "../../../runtime/descriptor.js";
import { docComment, pascalCase, propertyKey } from "./names.js";
import { valueType } from "./row-types.js";

/** `tracker` → `TrackerSchema`: the schema type's name from the package name. */
export function schemaTypeName(pkg: string): string {
  return `${pascalCase(pkg)}Schema`;
}

/** The columns of a table the builder sees: not hidden; a computed one only when the resource computes it. */
function builderColumns(table: TableDescriptor): ColumnDescriptor[] {
  return servedColumns(table);
}

function columnMeta(c: ColumnDescriptor): string {
  const flags: string[] = [];
  if (c.nullable) flags.push("nullable");
  if (c.array) flags.push("array");
  if (c.filterable) flags.push("filterable");
  if (c.sortable) flags.push("sortable");
  if (c.computed !== undefined) flags.push("computed");
  const args = [
    valueType(c, "read"),
    JSON.stringify(c.kind),
    ...(flags.length > 0 ? [flags.map((f) => JSON.stringify(f)).join(" | ")] : []),
  ];
  return `${propertyKey(c.name)}: ColumnType<${args.join(", ")}>;`;
}

function tableMeta(service: ServiceDescriptor, table: TableDescriptor): string {
  const columns = builderColumns(table);
  const visibleKey = table.primaryKey.filter((k) => columns.some((c) => c.name === k));
  const relations = table.relations.filter((r) => r.expandable && service.tables.some((t) => t.name === r.target));
  const doc = docComment(table.doc);
  return [
    `${doc}${propertyKey(table.name)}: {`,
    `key: ${visibleKey.length > 0 ? visibleKey.map((k) => JSON.stringify(k)).join(" | ") : "never"};`,
    `singleKey: ${table.primaryKey.length === 1};`,
    `columns: {\n${columns.map(columnMeta).join("\n")}\n};`,
    `relations: {${relations.map((r) => `\n${propertyKey(r.name)}: { target: ${JSON.stringify(r.target)}; kind: ${JSON.stringify(r.kind)} };`).join("")}${relations.length > 0 ? "\n" : ""}};`,
    "};",
  ].join("\n");
}

/**
 * The declaration `export interface <Name> { … }` describing every table of
 * `service` (served or not: in-process code may query any of them), for
 * `createQueryBuilder`. Unformatted (the caller runs prettier); needs
 * `ColumnType` in scope, and `JsonValue` when a column is a document.
 */
export function schemaType(service: ServiceDescriptor, name: string): string {
  return [
    "/**",
    " * Every table as the query builder sees it: visible columns with their type and",
    " * capabilities, expandable relations and the primary key (`createQueryBuilder(service, …)`).",
    " */",
    `export interface ${name} {`,
    ...service.tables.map((t) => tableMeta(service, t)),
    "}",
  ].join("\n");
}
