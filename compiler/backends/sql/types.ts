/**
 * Column and domain types as written in DDL: built-in types in their
 * canonical spelling with the declared modifiers (`numeric(5,2)`,
 * `character(20)`), declared enums and domains (and pass-through types)
 * double-quoted, `[]` per array dimension.
 */
import { quoteIdent } from "../../ident.js";
import type { TypeRef } from "../../../language/ir.js";
import { lookupBuiltin } from "../../../language/types.js";
import type { SchemaIndex } from "../../schema-index.js";

/** The DDL spelling of a type reference; a declared enum or domain by its database name (`@map`, `@schema`). */
export function ddlType(ref: TypeRef, index: SchemaIndex): string {
  const builtin = lookupBuiltin(ref.name);
  const name = builtin ? builtin.name : (index.userTypeSql(ref.name) ?? quoteIdent(ref.name));
  const args = ref.args.length > 0 ? `(${ref.args.join(",")})` : "";
  return name + args + "[]".repeat(ref.arrayDims);
}

/** `value` as a SQL string literal (standard-conforming: only quotes are doubled). */
export function stringLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
