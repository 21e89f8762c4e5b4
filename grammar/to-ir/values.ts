/**
 * Reads `value`, `arg` and `list` CST nodes into a small tagged union, so
 * attribute and setting handlers check meanings, not tree shapes.
 */
import type { CstNode } from "chevrotain";
import type { Span } from "../../language/ir.js";
import { node, nodes, nameToken, token, tokens } from "./cst.js";
import { unquote, type Ctx } from "./context.js";

/** A value as written. `raw` is the exact source text. */
export type Val =
  | { kind: "string"; value: string; raw: string; span: Span }
  | { kind: "number"; value: number; raw: string; span: Span }
  /** A bare name; `negated` for `-name` (a descending sort term). */
  | { kind: "name"; name: string; negated: boolean; raw: string; span: Span }
  | { kind: "call"; name: string; args: Arg[]; raw: string; span: Span }
  | { kind: "list"; items: Arg[]; raw: string; span: Span }
  /** SQL-only forms: a single-quoted string, a `::` cast. Meaningful only as a default expression. */
  | { kind: "sql"; raw: string; span: Span }
  /** Nothing usable (error recovery removed it); already reported as a syntax error. */
  | { kind: "missing"; raw: string; span: Span };

/** A positional or named (`key: value`) argument or list item. */
export interface Arg {
  key?: string;
  keySpan?: Span;
  value: Val;
  span: Span;
}

/** How a value is named in messages: "a string", "a list", … */
export function describe(v: Val): string {
  switch (v.kind) {
    case "string":
      return `the string ${v.raw}`;
    case "number":
      return `the number ${v.raw}`;
    case "name":
      return `"${v.raw}"`;
    case "call":
      return `the call ${v.raw}`;
    case "list":
      return "a list";
    case "sql":
      return `the SQL ${v.raw}`;
    case "missing":
      return "nothing";
  }
}

/** Reads a `value` node. */
export function readValue(n: CstNode | undefined, ctx: Ctx): Val {
  const span = ctx.nodeSpan(n);
  const raw = ctx.text(n);
  if (!n) return { kind: "missing", raw, span };
  if (token(n, "DoubleColon") || token(n, "SqlString")) return { kind: "sql", raw, span };
  const str = token(n, "StringLiteral");
  if (str) return { kind: "string", value: unquote(str.image), raw, span };
  const negative = token(n, "Minus") !== undefined;
  const num = token(n, "NumberLiteral");
  if (num) return { kind: "number", value: (negative ? -1 : 1) * Number(num.image), raw, span };
  const negatedName = nameToken(node(n, "negatedName"));
  if (negatedName) return { kind: "name", name: negatedName.image, negated: true, raw, span };
  const list = node(n, "list");
  if (list) return { kind: "list", items: nodes(list, "arg").map((a) => readArg(a, ctx)), raw, span };
  const name = nameToken(node(n, "anyName"));
  if (name) {
    const argList = node(n, "argList");
    if (argList) {
      return { kind: "call", name: name.image, args: nodes(argList, "arg").map((a) => readArg(a, ctx)), raw, span };
    }
    return { kind: "name", name: name.image, negated: false, raw, span };
  }
  return { kind: "missing", raw, span };
}

/** Reads an `arg` node (also used for list items). */
export function readArg(n: CstNode, ctx: Ctx): Arg {
  const key = tokens(n, "key")[0];
  const value = readValue(node(n, "value"), ctx);
  return key
    ? { key: key.image, keySpan: ctx.tok(key), value, span: ctx.nodeSpan(n) }
    : { value, span: ctx.nodeSpan(n) };
}
