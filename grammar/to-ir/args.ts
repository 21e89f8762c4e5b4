/**
 * Attribute uses (`@name(args)`, `@@name(args)`) and the checking of their
 * argument lists: how many positional arguments, which named ones.
 */
import type { CstNode } from "chevrotain";
import type { Span } from "../../language/ir.js";
import { node, nodes, token } from "./cst.js";
import type { Ctx } from "./context.js";
import { readArg, type Arg } from "./values.js";
import { didYouMean } from "../../language/suggest.js";

/** One attribute as written. `name` has no `@`/`@@`; `written` keeps them. */
export interface AttrUse {
  name: string;
  written: string;
  /** Span of the `@name` token. */
  nameSpan: Span;
  /** Span of the whole attribute including its arguments. */
  span: Span;
  args: Arg[];
}

/** Reads an `attribute` or `blockAttribute` node. */
export function readAttribute(n: CstNode, ctx: Ctx): AttrUse | undefined {
  const t = token(n, "AttributeName") ?? token(n, "BlockAttributeName");
  if (!t) return undefined;
  return {
    name: t.image.replace(/^@+/, ""),
    written: t.image,
    nameSpan: ctx.tok(t),
    span: ctx.nodeSpan(n, t),
    args: nodes(node(n, "argList"), "arg").map((a) => readArg(a, ctx)),
  };
}

/** Arguments split into positional ones and named ones (by key). */
export interface SplitArgs {
  positional: Arg[];
  named: Map<string, Arg>;
}

/**
 * Splits `use.args`, reporting an unknown key (`unknown-argument`, with a
 * suggestion), a key given twice and positional arguments beyond `maxPositional`
 * (`invalid-argument`). `usage` shows the correct form in messages.
 */
export function splitArgs(
  use: AttrUse,
  keys: readonly string[],
  maxPositional: number,
  usage: string,
  ctx: Ctx,
): SplitArgs {
  const positional: Arg[] = [];
  const named = new Map<string, Arg>();
  for (const a of use.args) {
    if (a.key === undefined) {
      if (positional.length >= maxPositional) {
        ctx.error(
          "invalid-argument",
          maxPositional === 0 && keys.length === 0
            ? `${use.written} takes no arguments`
            : `Too many arguments for ${use.written}: write ${usage}`,
          a.span,
        );
      } else positional.push(a);
      continue;
    }
    if (!keys.includes(a.key)) {
      const hint = didYouMean(a.key, keys);
      const known = keys.length > 0 ? ` (it accepts ${keys.map((k) => `${k}:`).join(", ")})` : "";
      const message = hint
        ? `${use.written} has no argument "${a.key}".${hint}`
        : `${use.written} has no argument "${a.key}"${known}`;
      ctx.error("unknown-argument", message, a.keySpan ?? a.span);
      continue;
    }
    if (named.has(a.key)) {
      ctx.error("invalid-argument", `Argument "${a.key}" of ${use.written} is given twice`, a.keySpan ?? a.span);
      continue;
    }
    named.set(a.key, a);
  }
  return { positional, named };
}

/** Reports `missing-argument` on the attribute and returns false when fewer than `n` positional arguments were given. */
export function requirePositional(use: AttrUse, split: SplitArgs, n: number, usage: string, ctx: Ctx): boolean {
  if (split.positional.length >= n) return true;
  ctx.error(
    "missing-argument",
    `${use.written} needs ${n === 1 ? "an argument" : `${n} arguments`}: write ${usage}`,
    use.span,
  );
  return false;
}
