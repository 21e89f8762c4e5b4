/**
 * Checks that a value has the shape a setting or attribute argument needs
 * and reports it precisely when it does not (codes `invalid-value` for
 * settings, `invalid-argument` for attribute arguments). Every helper
 * returns undefined after reporting, so callers simply skip the field.
 */
import type { SortTermDecl, Span } from "../../language/ir.js";
import type { Ctx } from "./context.js";
import { describe, type Val } from "./values.js";

/** Where a value sits, for messages: `"max_page_size"` or `@computed`; and the code to report under. */
export interface Where {
  what: string;
  code: "invalid-value" | "invalid-argument";
}

function bad(ctx: Ctx, where: Where, wanted: string, v: Val): undefined {
  if (v.kind === "missing") return undefined; // already a syntax error
  ctx.error(where.code, `Expected ${wanted} for ${where.what}, found ${describe(v)}`, v.span);
  return undefined;
}

/** A double-quoted string's content. */
export function expectString(v: Val, where: Where, ctx: Ctx): string | undefined {
  return v.kind === "string" ? v.value : bad(ctx, where, "a string", v);
}

/** A bare name (not negated). */
export function expectName(v: Val, where: Where, ctx: Ctx): string | undefined {
  return v.kind === "name" && !v.negated ? v.name : bad(ctx, where, "a name", v);
}

/** A whole number; negative ones pass (the validator refuses them with this location). */
export function expectInteger(v: Val, where: Where, ctx: Ctx): number | undefined {
  return v.kind === "number" && Number.isInteger(v.value) ? v.value : bad(ctx, where, "a whole number", v);
}

/** `true` or `false`. */
export function expectBoolean(v: Val, where: Where, ctx: Ctx): boolean | undefined {
  if (v.kind === "name" && !v.negated && (v.name === "true" || v.name === "false")) return v.name === "true";
  return bad(ctx, where, "true or false", v);
}

/** One of `choices`, written as a bare name. */
export function expectChoice<T extends string>(v: Val, choices: readonly T[], where: Where, ctx: Ctx): T | undefined {
  if (v.kind === "name" && !v.negated && (choices as readonly string[]).includes(v.name)) return v.name as T;
  return bad(ctx, where, choices.map((c) => `"${c}"`).join(" or "), v);
}

/** A list of bare names, each with its span (items that are not names are reported and dropped). */
export function expectNameList(v: Val, where: Where, ctx: Ctx): { name: string; span: Span }[] | undefined {
  if (v.kind !== "list") return bad(ctx, where, "a list of names, like [a, b]", v);
  const out: { name: string; span: Span }[] = [];
  for (const item of v.items) {
    if (item.key !== undefined) {
      ctx.error(where.code, `Expected a name in the list of ${where.what}, found "${item.key}: …"`, item.span);
      continue;
    }
    const name = expectName(item.value, { ...where, what: `an item of ${where.what}` }, ctx);
    if (name !== undefined) out.push({ name, span: item.value.span });
  }
  return out;
}

/** A list of sort terms: `[title, -created_at]` (a leading minus means descending). */
export function expectSortTerms(v: Val, where: Where, ctx: Ctx): SortTermDecl[] | undefined {
  if (v.kind !== "list") return bad(ctx, where, "a list of columns, like [title, -id]", v);
  const out: SortTermDecl[] = [];
  for (const item of v.items) {
    const t = item.value;
    if (item.key === undefined && t.kind === "name") {
      out.push({ column: t.name, descending: t.negated, span: t.span });
    } else {
      if (t.kind !== "missing") {
        ctx.error(
          where.code,
          `Expected a column name (-name for descending) in ${where.what}, found ${describe(t)}`,
          t.span,
        );
      }
    }
  }
  return out;
}
