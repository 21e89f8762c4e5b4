/**
 * The TypeScript types of a resource (spec: Resources and their fields):
 * the response row, the create body and the update body, derived from the
 * runtime descriptor so the types say exactly what the handlers accept.
 *
 * JSON travel (docs/decisions/0209-json-value-types.md): numeric as a
 * string (no precision lost; a body may also send a number), bigint as a number, dates and times as
 * RFC 3339 strings, bytea as base64 text, jsonb as a JsonValue, extension
 * types as text.
 */
import { servedColumns, type ColumnDescriptor, type TableDescriptor } from "../../../runtime/descriptor.js";
import { stampedColumns } from "../../../runtime/access/rules.js";
import { docComment, pascalCase, propertyKey } from "./names.js";
import { WIRE_TYPE } from "../ts-text.js";

/**
 * The TypeScript type of a column's value, without `| null`: as served
 * (`read`) or as accepted in a body (`write`, where a numeric may also be a
 * JSON number, docs/http.md). `json` is kind `other` (no containment
 * operators) but travels as a document.
 */
export function valueType(column: ColumnDescriptor, use: "read" | "write" = "read"): string {
  const isJson = column.kind === "other" && column.sqlType.replace(/(\[\])+$/, "") === "json";
  const scalar =
    column.kind === "enum" && column.enumValues && column.enumValues.length > 0
      ? column.enumValues.map((v) => JSON.stringify(v)).join(" | ")
      : isJson
        ? "JsonValue"
        : use === "write" && column.kind === "numeric"
          ? "string | number"
          : WIRE_TYPE[column.kind];
  if (!column.array) return scalar;
  return scalar.includes(" | ") ? `(${scalar})[]` : `${scalar}[]`;
}

function field(column: ColumnDescriptor, use: "read" | "write", optional: boolean, nullable: boolean): string {
  const type = valueType(column, use) + (nullable ? " | null" : "");
  return `${docComment(column.doc)}${propertyKey(column.name)}${optional ? "?" : ""}: ${type};`;
}

function declare(name: string, doc: string, fields: string[]): string {
  if (fields.length === 0) return `${doc}export type ${name} = Record<string, never>;`;
  return `${doc}export interface ${name} {\n${fields.join("\n")}\n}`;
}

/** Type names of one table's resource: `<Pascal>Row`, `<Pascal>Create`, `<Pascal>Update`. */
export function typeNames(table: TableDescriptor): { row: string; create: string; update: string } {
  const stem = pascalCase(table.name);
  return { row: `${stem}Row`, create: `${stem}Create`, update: `${stem}Update` };
}

/**
 * The three declarations of a served table. Row: every non-hidden column,
 * computed ones only when the resource computes them. Create: not hidden,
 * read-only or computed; optional when nullable, defaulted or stamped by an
 * access block for some roles. Update: the create fields minus immutable
 * ones, all optional, `| null` only where the column is nullable. A resource exposing neither create nor update uses
 * the empty placeholder for both.
 */
export function rowTypes(table: TableDescriptor): string {
  const resource = table.resource;
  if (!resource) return "";
  const names = typeNames(table);
  const visible = servedColumns(table);
  const writable = visible.filter((c) => !c.readOnly && c.computed === undefined);
  const writes = resource.ops.create || resource.ops.update;
  const what = `\`${resource.path}\` (table \`${table.name}\`)`;
  const stamped = stampedColumns(table);
  return [
    declare(
      names.row,
      docComment(table.doc ? `${table.doc}\n\nA row of ${what}.` : `A row of ${what}.`),
      visible.map((c) => field(c, "read", false, c.nullable)),
    ),
    declare(
      names.create,
      docComment(`The create body of ${what}.`),
      // A column the access rules stamp for some roles is one those roles leave out (docs/decisions/1367-access-rules.md).
      writes
        ? writable.map((c) => field(c, "write", c.nullable || c.hasDefault || stamped.has(c.name), c.nullable))
        : [],
    ),
    declare(
      names.update,
      docComment(`The update body of ${what}: every field optional.`),
      writes ? writable.filter((c) => !c.immutable).map((c) => field(c, "write", true, c.nullable)) : [],
    ),
  ].join("\n\n");
}
