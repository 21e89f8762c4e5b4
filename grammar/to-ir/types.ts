/**
 * Reading a `typeRef` CST node into a `TypeRef` whose name is canonical
 * (docs/language.md, Types). The spellings and canonical names are the one
 * table of language/types.ts, which the validator and backends read too.
 */
import type { CstNode } from "chevrotain";
import type { Span, TypeRef } from "../../language/ir.js";
import { BUILTIN_TYPES, probableTypeTypo } from "../../language/types.js";
import { tokens } from "./cst.js";
import type { Ctx } from "./context.js";

/** A type as read from the CST, before names of enums and domains are known. */
export interface ReadType {
  type: TypeRef;
  nullable: boolean;
  /** True when the spelling is a built-in type; otherwise it must name an enum or domain. */
  builtin: boolean;
  /** Span of the type's name words only. */
  nameSpan: Span;
}

/** Reads a `typeRef` node: words, modifiers `(p, s)`, `[]` suffixes and `?`. */
export function readType(n: CstNode | undefined, ctx: Ctx): ReadType {
  const words = tokens(n, "word");
  const written = words.map((w) => w.image).join(" ");
  const canonical = BUILTIN_TYPES.get(written.toLowerCase());
  const ends = [...words, ...tokens(n, "RParen"), ...tokens(n, "RBracket")].sort(
    (a, b) => a.startOffset - b.startOffset,
  );
  const span = words.length > 0 ? ctx.source.between(words[0]!, ends[ends.length - 1]!) : ctx.nodeSpan(n);
  return {
    type: {
      name: canonical ?? written,
      args: tokens(n, "modifier").map((t) => Number(t.image)),
      arrayDims: tokens(n, "LBracket").length,
      span,
    },
    nullable: tokens(n, "Question").length > 0,
    builtin: canonical !== undefined,
    nameSpan: words.length > 0 ? ctx.source.between(words[0]!, words[words.length - 1]!) : span,
  };
}

/**
 * Reports `unknown-type` (an error) when `t` is neither built in nor a
 * declared enum or domain (`userTypes`, collected from the whole file first,
 * so declaration order does not matter) AND is one edit away from a known
 * name (two for long names): a probable typo, reported with the suggestion.
 * Any other unknown name is taken for an extension type and left to the
 * validator's warning (docs/decisions/0101-unknown-types-in-the-parser.md).
 * The span is the type's name, without modifiers or suffixes.
 */
export function checkType(t: ReadType, userTypes: ReadonlySet<string>, ctx: Ctx): void {
  if (t.builtin || t.type.name === "") return;
  const suggestion = probableTypeTypo(t.type.name, userTypes);
  if (suggestion === undefined) return;
  ctx.error("unknown-type", `Unknown type "${t.type.name}". Did you mean "${suggestion}"?`, t.nameSpan);
}
