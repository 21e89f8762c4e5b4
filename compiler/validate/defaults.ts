/**
 * `@default(…)` sanity, where it is cheap to know without a database: an
 * enum default names a value of the enum; a literal has the column's shape
 * (a number for a number, a boolean for a boolean, no NULL on a NOT NULL
 * column); identity numbers only integer columns. SQL expressions are
 * trusted as written and checked by PostgreSQL when the DDL is applied.
 */
import type { ColumnDecl, TableDecl } from "../../language/ir.js";
import type { ResolvedType } from "../schema-index.js";
import { attributeSpan, qualified, typeText, type ValidationContext } from "./context.js";

const NUMERIC_KINDS = new Set(["integer", "bigint", "numeric", "float"]);

/** Why a default does not fit its column, or undefined when it does (or cannot be judged cheaply). */
function problem(column: ColumnDecl, type: ResolvedType): string | undefined {
  const d = column.default;
  if (!d || d.kind === "sql") return undefined;
  const written = typeText(column.type);
  if (d.kind === "identity") {
    const ok = type.base.kind === "builtin" && type.base.type.family === "integer" && !type.base.type.serial;
    return ok && type.arrayDims === 0 && type.domains.length === 0
      ? undefined
      : `identity numbers smallint, integer or bigint columns, not "${written}"`;
  }
  const enumValues = type.base.kind === "enum" && type.arrayDims === 0 ? type.base.decl.values : undefined;
  if (d.kind === "enum-value") {
    if (!enumValues) {
      return `a bare name is read as an enum value, but the column has type "${written}"; write sql("…") for an SQL expression`;
    }
    return enumValues.includes(d.value)
      ? undefined
      : `"${d.value}" is not a value of enum "${type.base.kind === "enum" ? type.base.decl.name : ""}" (${enumValues.join(", ")})`;
  }
  const value = d.value;
  if (value === null) return column.nullable ? undefined : "a NOT NULL column cannot default to null";
  if (type.kind === "other") return undefined;
  if (type.arrayDims > 0)
    return typeof value === "string" ? undefined : `an array column takes an array literal string, like "{}"`;
  if (enumValues)
    return typeof value === "string" && enumValues.includes(value)
      ? undefined
      : `${JSON.stringify(value)} is not a value of the enum (${enumValues.join(", ")})`;
  if (typeof value === "boolean")
    return type.kind === "boolean" ? undefined : `a boolean does not fit type "${written}"`;
  if (typeof value === "number") {
    if (!NUMERIC_KINDS.has(type.kind)) return `a number does not fit type "${written}"`;
    return (type.kind === "integer" || type.kind === "bigint") && !Number.isInteger(value)
      ? `${value} is not an integer`
      : undefined;
  }
  if (type.kind === "boolean") return `a string does not fit type "${written}"; write true or false`;
  if (NUMERIC_KINDS.has(type.kind) && (value.trim() === "" || Number.isNaN(Number(value)))) {
    return `${JSON.stringify(value)} is not a number`;
  }
  return undefined;
}

function checkColumn(ctx: ValidationContext, table: TableDecl, column: ColumnDecl): void {
  const why = problem(column, ctx.index.resolve(column.type));
  if (why) {
    ctx.error(
      "invalid-default",
      `invalid @default on "${qualified(table, column.name)}": ${why}`,
      attributeSpan(column, "default"),
    );
  }
}

/** Reports `invalid-default`. */
export function checkDefaults(ctx: ValidationContext): void {
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) checkColumn(ctx, table, column);
  }
}
