/**
 * Type names: a column or domain type is a PostgreSQL built-in, a declared
 * enum or a declared domain. Anything else (an extension type such as
 * `ltree`) is passed through to the DDL as written and travels as text;
 * that is a warning, not an error, so a real database's schema can still be
 * described (docs/decisions/0201-unknown-types.md). Searchable needs a text
 * value, since search is a case-insensitive substring match.
 */
import type { Span, TypeRef } from "../../language/ir.js";
import { attributeSpan, qualified, typeText, type ValidationContext } from "./context.js";

/** Reports `unknown-type` (a warning) when `ref` names no built-in type, enum or domain; `where` names its owner in the message. */
export function checkKnown(ctx: ValidationContext, ref: TypeRef, where: string, span: Span): void {
  const resolved = ctx.index.resolve(ref);
  if (resolved.base.kind === "unknown") {
    ctx.warning(
      "unknown-type",
      `type "${resolved.base.name}" of ${where} is neither a known PostgreSQL type nor a declared enum or domain; it is passed through as written and served as text`,
      span,
    );
  }
}

/** Reports `unknown-type` (warning) and `searchable-not-text`. */
export function checkTypes(ctx: ValidationContext): void {
  for (const domain of ctx.index.schema.domains)
    checkKnown(ctx, domain.base, `domain "${domain.name}"`, domain.base.span);
  for (const table of ctx.index.schema.tables) {
    for (const column of table.columns) {
      const name = qualified(table, column.name);
      if (!ctx.index.domains.has(column.type.name)) checkKnown(ctx, column.type, `"${name}"`, column.type.span);
      const resolved = ctx.index.resolve(column.type);
      if (
        column.searchable &&
        resolved.arrayDims === 0 &&
        resolved.kind !== "text" &&
        resolved.base.kind !== "unknown"
      ) {
        ctx.error(
          "searchable-not-text",
          `"${name}" has type "${typeText(column.type)}"; only text columns can be @searchable`,
          attributeSpan(column, "searchable"),
        );
      }
    }
  }
}
