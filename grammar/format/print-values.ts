/**
 * Printing values, argument lists, lists, types and attributes: one line
 * (`@ref(list, lists, expandable)`, `[-due_on, title]`, `numeric(6,2)?`),
 * or, when a comment sits inside a list or argument list, one item per line.
 *
 * A call (`now()`, `nextval('s'::regclass)`) and any SQL-only value are
 * printed exactly as written: the IR keeps their source text as the SQL of
 * a default (grammar/to-ir/attributes.ts), so re-spacing them would change
 * the schema's meaning.
 */
import type { CstNode } from "chevrotain";
import { node, nodes, token, tokens } from "../to-ir/cst.js";
import { commentText, CONTINUATION, INDENT, type Printer } from "./printer.js";

function leadingLines(items: { comment: { text: string }; newlinesBefore: number }[], indent: string): string[] {
  const out: string[] = [];
  items.forEach((it, i) => {
    if (i > 0 && it.newlinesBefore >= 2) out.push("");
    out.push(indent + it.comment.text);
  });
  return out;
}

/**
 * Prints `open items close` (an argument list or a list). `items` are `arg`
 * nodes; `open`/`close` token indices. `indent` is the indentation of the
 * line the list starts on; an expanded list puts its items one level deeper
 * and its closing bracket at `indent`.
 */
export function printItems(p: Printer, open: number, items: CstNode[], close: number, indent: string): string {
  const o = p.tokens[open]!.image;
  const c = p.tokens[close]!.image;
  const inside = p.trivia.peek(open, close).items;
  if (inside.every((i) => i.comment.kind === "block" && !i.comment.text.includes("\n"))) {
    return oneLine(p, open, items, close, indent);
  }
  const inner = indent + INDENT;
  const lines: string[] = [];
  let prevLast = open;
  let head = o;
  items.forEach((a, k) => {
    const { trailing, rest } = p.split(prevLast, p.first(a));
    if (k === 0) {
      if (trailing.length > 0) head += ` ${commentText(trailing)}`;
    } else if (trailing.length > 0) lines[lines.length - 1] += `  ${commentText(trailing)}`;
    lines.push(...leadingLines(rest.items, inner));
    if (rest.items.length > 0 && rest.newlinesAfter >= 2) lines.push("");
    lines.push(inner + printArg(p, a, inner) + (k < items.length - 1 ? "," : ""));
    prevLast = p.last(a);
  });
  const end = p.split(prevLast, close);
  if (items.length === 0) {
    if (end.trailing.length > 0) head += ` ${commentText(end.trailing)}`;
  } else if (end.trailing.length > 0) lines[lines.length - 1] += `  ${commentText(end.trailing)}`;
  lines.push(...leadingLines(end.rest.items, inner));
  return [head, ...lines, indent + c].join("\n");
}

/** `open items close` on one line; block comments inside stay where they are. */
function oneLine(p: Printer, open: number, items: CstNode[], close: number, indent: string): string {
  const cont = indent + CONTINUATION;
  let out = p.tokens[open]!.image;
  let prev = open;
  items.forEach((a, k) => {
    const comments = p.inline(prev, p.first(a), cont);
    out += (k === 0 ? "" : ", ") + comments + printArg(p, a, indent);
    prev = p.last(a);
  });
  return p.glue(out, prev, close, "", p.tokens[close]!.image, cont);
}

/** Prints an `arg` node: `value` or `key: value`. */
export function printArg(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const v = node(n, "value")!;
  const key = token(n, "key");
  if (!key) return printValue(p, v, indent);
  const colon = p.at(token(n, "Colon")!);
  const k = p.glue(key.image, p.at(key), colon, "", ":", cont);
  return p.glue(k, colon, p.first(v), " ", printValue(p, v, indent), cont);
}

/** Prints a `value` node. */
export function printValue(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const call = node(n, "anyName") !== undefined && node(n, "argList") !== undefined;
  if (call || token(n, "DoubleColon") || token(n, "SqlString")) return p.verbatim(p.first(n), p.last(n));
  const list = node(n, "list");
  if (list) {
    return printItems(p, p.at(token(list, "LBracket")!), nodes(list, "arg"), p.at(token(list, "RBracket")!), indent);
  }
  const minus = token(n, "Minus");
  if (minus) {
    const rest = p.last(n);
    return p.glue("-", p.at(minus), rest, "", p.tokens[rest]!.image, cont);
  }
  return p.tokens[p.first(n)]!.image;
}

/** Prints a `typeRef` node: words separated by one space, then `(p,s)`, `[]` and `?` with no space. */
export function printType(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const words = new Set(tokens(n, "word").map((t) => p.at(t)));
  const ts = p.tokensOf(n).map((t) => p.at(t));
  let out = p.tokens[ts[0]!]!.image;
  for (let k = 1; k < ts.length; k++) {
    const a = ts[k - 1]!;
    const b = ts[k]!;
    const sep = words.has(a) && words.has(b) ? " " : "";
    out = p.glue(out, a, b, sep, p.tokens[b]!.image, cont);
  }
  return out;
}

/** Prints an `attribute` or `blockAttribute` node: `@name` or `@name(arguments)`. */
export function printAttribute(p: Printer, n: CstNode, indent: string): string {
  const name = token(n, "AttributeName") ?? token(n, "BlockAttributeName")!;
  const args = node(n, "argList");
  if (!args) return name.image;
  const open = p.at(token(args, "LParen")!);
  const list = printItems(p, open, nodes(args, "arg"), p.at(token(args, "RParen")!), indent);
  return p.glue(name.image, p.at(name), open, "", list, indent + CONTINUATION);
}
