/**
 * Printing the rule expressions of `access` blocks
 * (docs/decisions/1367-access-rules.md): one space around every operator
 * and word, none around `.` or inside `rows(op, …)`, lists as every list is
 * printed, parentheses kept as written (they may change the meaning). A
 * line break the source has around an `and` or `or` is kept, before the
 * word, the next line continuing one step deeper; comments stay where they
 * are (docs/decisions/1100-formatter-layout.md).
 */
import type { CstNode, IToken } from "chevrotain";
import { nameToken, node, nodes, token, tokens } from "../to-ir/cst.js";
import { CONTINUATION, type Printer } from "./printer.js";
import { printItems } from "./print-values.js";

/** A printed piece and the token indices it starts and ends with. */
interface Piece {
  text: string;
  first: number;
  last: number;
}

function tok(p: Printer, t: IToken): Piece {
  const i = p.at(t);
  return { text: p.tokens[i]!.image, first: i, last: i };
}

/** `a` then `b` with `sep` between them (comments between them placed inline). */
function join(p: Printer, a: Piece, b: Piece, sep: string, cont: string): Piece {
  return { text: p.glue(a.text, a.last, b.first, sep, b.text, cont), first: a.first, last: b.last };
}

function sorted(ts: IToken[]): IToken[] {
  return ts.sort((x, y) => x.startOffset - y.startOffset);
}

/** A name, or `a.b` (`relation.column`, `claim.name`) from its name nodes and dot. */
function dotted(p: Printer, first: IToken, dot: IToken | undefined, second: IToken | undefined, cont: string): Piece {
  let out = tok(p, first);
  if (dot && second) out = join(p, join(p, out, tok(p, dot), "", cont), tok(p, second), "", cont);
  return out;
}

/** Prints a `ruleOperand` node. */
export function printOperand(p: Printer, n: CstNode, indent: string): Piece {
  const cont = indent + CONTINUATION;
  const list = node(n, "list");
  if (list) {
    const open = p.at(token(list, "LBracket")!);
    const close = p.at(token(list, "RBracket")!);
    return { text: printItems(p, open, nodes(list, "arg"), close, indent), first: open, last: close };
  }
  const claim = token(n, "Claim");
  if (claim) return dotted(p, claim, token(n, "Dot"), nameToken(node(n, "claim")), cont);
  const minus = token(n, "Minus");
  const num = token(n, "NumberLiteral");
  if (minus && num) return join(p, tok(p, minus), tok(p, num), "", cont);
  const simple = token(n, "StringLiteral") ?? num;
  if (simple) return tok(p, simple);
  return dotted(p, nameToken(node(n, "word"))!, token(n, "Dot"), nameToken(node(n, "member")), cont);
}

function printCmp(p: Printer, n: CstNode, indent: string): Piece {
  const cont = indent + CONTINUATION;
  let out = dotted(p, nameToken(node(n, "column"))!, token(n, "Dot"), nameToken(node(n, "member")), cont);
  for (const op of sorted(tokens(n, "op"))) out = join(p, out, tok(p, op), " ", cont);
  const word = nameToken(node(n, "nullWord"));
  if (word) return join(p, out, tok(p, word), " ", cont);
  const operand = node(n, "ruleOperand");
  return operand ? join(p, out, printOperand(p, operand, indent), " ", cont) : out;
}

function printNot(p: Printer, n: CstNode, indent: string): Piece {
  const cont = indent + CONTINUATION;
  const nots = sorted(tokens(n, "Not")).map((t) => tok(p, t));
  const inner = node(n, "ruleExpr");
  let atom: Piece;
  if (inner) {
    const open = tok(p, token(n, "LParen")!);
    const close = tok(p, token(n, "RParen")!);
    atom = join(p, join(p, open, printExpr(p, inner, indent), "", cont), close, "", cont);
  } else atom = printCmp(p, node(n, "ruleCmp")!, indent);
  let out: Piece | undefined;
  for (const not of [...nots, atom]) out = out ? join(p, out, not, " ", cont) : not;
  return out!;
}

/** Terms joined by `word` (`and`, `or`): a line break around the word in the source is kept, before it. */
function printTerms(
  p: Printer,
  n: CstNode,
  word: string,
  print: (p: Printer, n: CstNode, indent: string) => Piece,
  indent: string,
): Piece {
  const cont = indent + CONTINUATION;
  const terms = nodes(n, "term");
  const words = sorted(tokens(n, word === "or" ? "Or" : "And"));
  let out = print(p, terms[0]!, indent);
  terms.slice(1).forEach((term, i) => {
    const w = tok(p, words[i]!);
    const next = print(p, term, indent);
    const broken = p.line(w.first) > p.line(out.last) || p.line(next.first) > p.line(w.last);
    out = join(p, join(p, out, w, broken ? `\n${cont}` : " ", cont), next, " ", cont);
  });
  return out;
}

function printAnd(p: Printer, n: CstNode, indent: string): Piece {
  return printTerms(p, n, "and", printNot, indent);
}

/** Prints a `ruleExpr` node at a statement indented by `indent`. */
export function printExpr(p: Printer, n: CstNode, indent: string): Piece {
  return printTerms(p, n, "or", printAnd, indent);
}

/** `rows expr` or `rows(op, …) expr`. */
export function printRows(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  let out = tok(p, token(n, "Rows")!);
  const open = token(n, "LParen");
  if (open) {
    out = join(p, out, tok(p, open), "", cont);
    sorted(nodes(n, "op").map((o) => nameToken(o)!)).forEach((op, i) => {
      if (i > 0) out = { text: `${out.text},`, first: out.first, last: out.last };
      out = join(p, out, tok(p, op), i > 0 ? " " : "", cont);
    });
    out = join(p, out, tok(p, token(n, "RParen")!), "", cont);
  }
  return join(p, out, printExpr(p, node(n, "ruleExpr")!, indent), " ", cont).text;
}

/** `check expr`. */
export function printCheck(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  return join(p, tok(p, token(n, "Check")!), printExpr(p, node(n, "ruleExpr")!, indent), " ", cont).text;
}

/** The part of `stamp column = claim.x` after the aligned column: `= claim.x`. */
export function printStampValue(p: Printer, n: CstNode, indent: string): { column: string; rest: string } {
  const cont = indent + CONTINUATION;
  const column = tok(p, nameToken(node(n, "column"))!);
  const eq = tok(p, token(n, "Equals")!);
  const rest = join(p, eq, printOperand(p, node(n, "ruleOperand")!, indent), " ", cont);
  return { column: column.text, rest: p.inline(column.last, eq.first, cont) + rest.text };
}
