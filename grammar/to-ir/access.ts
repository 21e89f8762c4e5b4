/**
 * `access role, … { … }` blocks inside a table and their rule expressions
 * (docs/language.md, Authentication and access;
 * docs/decisions/1367-access-rules.md). The IR keeps what is written: op
 * names and named sets unexpanded, columns, claims and literals by name.
 * What a statement alone shows is reported here (a right side that is no
 * claim or literal, a stamp from a literal, a repeated statement); whether
 * the names exist and the types fit is the validator's
 * (compiler/validate/access.ts).
 */
import type { CstNode, IToken } from "chevrotain";
import type { AccessDecl, RuleExprDecl, RuleOperandDecl, Span, StampDecl } from "../../language/ir.js";
import { eachSetting } from "./auth.js";
import { nameToken, node, nodes, offsetRange, token, tokens } from "./cst.js";
import { unquote, type Ctx } from "./context.js";
import { expectNameList } from "./expect.js";
import { readArg, type Arg } from "./values.js";

/** The statements of an access block besides its settings; written with "=" they get a precise message. */
const STATEMENTS: Readonly<Record<string, string>> = {
  rows: "rows org_id = claim.org",
  check: "check org_id = claim.org",
  stamp: "stamp org_id = claim.org",
  hide: "hide [a, b]",
};

/** The settings of an access block. */
export const ACCESS_SETTINGS: readonly string[] = ["ops"];

type Cmp = Extract<RuleExprDecl, { kind: "cmp" }>;

/** Each operator as written (its words joined by one space) and the query grammar's name for it. */
const OPERATORS: Readonly<Record<string, Cmp["op"]>> = {
  "=": "eq",
  "!=": "ne",
  "<": "lt",
  "<=": "lte",
  ">": "gt",
  ">=": "gte",
  in: "in",
  "not in": "nin",
  has: "has",
  is: "isnull",
  "is not": "notnull",
};

const OPERAND_FORMS = "claim.<name>, a string, a number, true, false, null, an enum value or a list";

function spanOf(ctx: Ctx, n: CstNode | undefined): Span {
  return ctx.nodeSpan(n);
}

/**
 * A list item: a string, a number, `true`, `false`, or a bare name (an enum value, judged by the validator);
 * anything else (`null`, `claim.x`, `a: b`) is reported and dropped.
 */
function listItem(a: Arg, ctx: Ctx): RuleOperandDecl | undefined {
  const v = a.value;
  if (a.key === undefined) {
    if (v.kind === "string" || v.kind === "number") return { kind: "literal", value: v.value, span: v.span };
    if (v.kind === "name" && !v.negated && (v.name === "true" || v.name === "false"))
      return { kind: "literal", value: v.name === "true", span: v.span };
    if (v.kind === "name" && !v.negated && v.name !== "null" && !v.name.includes("."))
      return { kind: "word", word: v.name, span: v.span };
    if (v.kind === "missing") return undefined;
  }
  ctx.error(
    "invalid-rule-operand",
    `A list in a rule holds strings, numbers, true, false and enum values, found ${a.key !== undefined ? `"${a.key}: …"` : v.raw}`,
    a.span,
  );
  return undefined;
}

/**
 * Reads a `ruleOperand` node; `after` names what precedes it in messages.
 * A bare name other than `true`, `false` and `null` is a `word`, which only
 * an enum column takes (the validator says so otherwise); a dotted name
 * other than `claim.x` (`a.b`) is `invalid-rule-operand`: a rule compares a
 * column with a claim or a literal.
 */
export function readOperand(n: CstNode | undefined, after: string, ctx: Ctx): RuleOperandDecl | undefined {
  if (!n) return undefined;
  const span = spanOf(ctx, n);
  const claim = nameToken(node(n, "claim"));
  if (token(n, "Claim") && claim) return { kind: "claim", claim: claim.image, span };
  const str = token(n, "StringLiteral");
  if (str) return { kind: "literal", value: unquote(str.image), span };
  const num = token(n, "NumberLiteral");
  if (num) return { kind: "literal", value: (token(n, "Minus") ? -1 : 1) * Number(num.image), span };
  const list = node(n, "list");
  if (list) {
    const items = nodes(list, "arg")
      .map((a) => listItem(readArg(a, ctx), ctx))
      .filter((i): i is RuleOperandDecl => i !== undefined);
    return { kind: "list", items, span };
  }
  const word = nameToken(node(n, "word"));
  if (!word) return undefined;
  const member = nameToken(node(n, "member"));
  if (!member) {
    if (word.image === "true" || word.image === "false") return { kind: "literal", value: word.image === "true", span };
    if (word.image === "null") return { kind: "literal", value: null, span };
    return { kind: "word", word: word.image, span };
  }
  ctx.error(
    "invalid-rule-operand",
    `Expected ${OPERAND_FORMS} after ${after}, found "${word.image}.${member.image}": a rule compares a column with a claim or a literal`,
    span,
  );
  return undefined;
}

function readCmp(n: CstNode, ctx: Ctx): RuleExprDecl | undefined {
  const first = nameToken(node(n, "column"));
  if (!first) return undefined;
  const member = nameToken(node(n, "member"));
  const left: Cmp["left"] = member
    ? { kind: "column", column: member.image, relation: first.image, span: ctx.source.between(first, member) }
    : { kind: "column", column: first.image, span: ctx.tok(first) };
  const opTokens = tokens(n, "op").sort((a, b) => a.startOffset - b.startOffset);
  if (opTokens.length === 0) return undefined;
  const written = opTokens.map((t) => t.image).join(" ");
  const op = OPERATORS[written];
  if (op === undefined) return undefined;
  const span = spanOf(ctx, n);
  if (op === "isnull" || op === "notnull") {
    const word = nameToken(node(n, "nullWord"));
    if (!word) return undefined;
    const opSpan = ctx.source.between(opTokens[0]!, word);
    if (word.image !== "null") {
      ctx.error("invalid-rule-operand", `Expected null after "${written}", found "${word.image}"`, ctx.tok(word));
      return undefined;
    }
    return { kind: "cmp", left, op, opSpan, span };
  }
  const opSpan = ctx.source.between(opTokens[0]!, opTokens[opTokens.length - 1]!);
  const right = readOperand(node(n, "ruleOperand"), `"${written}"`, ctx);
  if (!right) return undefined;
  return { kind: "cmp", left, op, right, opSpan, span };
}

function readNot(n: CstNode, ctx: Ctx): RuleExprDecl | undefined {
  const inner = node(n, "ruleExpr");
  const cmp = node(n, "ruleCmp");
  let expr = inner ? readExpr(inner, ctx) : cmp ? readCmp(cmp, ctx) : undefined;
  if (!expr) return undefined;
  const end = offsetRange(n)?.end ?? expr.span.offset + expr.span.length;
  const nots: IToken[] = tokens(n, "Not").sort((a, b) => b.startOffset - a.startOffset);
  for (const t of nots) expr = { kind: "not", child: expr, span: ctx.source.span(t.startOffset, end) };
  return expr;
}

function readTerms(
  n: CstNode,
  kind: "and" | "or",
  read: (c: CstNode, ctx: Ctx) => RuleExprDecl | undefined,
  ctx: Ctx,
): RuleExprDecl | undefined {
  const children = nodes(n, "term").map((t) => read(t, ctx));
  // A term lost to a syntax error (already reported) loses the whole expression: half a rule would grant more.
  if (children.length === 0 || children.some((c) => c === undefined)) return undefined;
  if (children.length === 1) return children[0];
  return { kind, children: children as RuleExprDecl[], span: spanOf(ctx, n) };
}

function readAnd(n: CstNode, ctx: Ctx): RuleExprDecl | undefined {
  return readTerms(n, "and", readNot, ctx);
}

/**
 * Reads a `ruleExpr` node: `or` of `and` of `not`-prefixed comparisons or
 * parenthesized expressions, each node with its span. Undefined when a part
 * was lost to a syntax error or reported as a bad operand.
 */
export function readExpr(n: CstNode, ctx: Ctx): RuleExprDecl | undefined {
  return readTerms(n, "or", readAnd, ctx);
}

function readStamp(n: CstNode, ctx: Ctx): StampDecl | undefined {
  const column = nameToken(node(n, "column"));
  const operand = readOperand(node(n, "ruleOperand"), `"stamp ${column?.image ?? ""} ="`, ctx);
  if (!column || !operand) return undefined;
  if (operand.kind !== "claim") {
    const claim = operand.kind === "word" ? operand.word : "<name>";
    ctx.error(
      "invalid-stamp",
      `A stamp sets a column from a claim on create: write stamp ${column.image} = claim.${claim} (a constant is a @default)`,
      operand.span,
    );
    return undefined;
  }
  return {
    column: column.image,
    claim: operand.claim,
    columnSpan: ctx.tok(column),
    claimSpan: operand.span,
    span: spanOf(ctx, n),
  };
}

/** Reports a second `check` or `hide` statement of one block (`duplicate-setting`); true when it is one. */
function repeated(block: AccessDecl, key: string, keyword: IToken | undefined, ctx: Ctx): boolean {
  const first = block.settingSpans[key];
  if (!first || !keyword) return false;
  ctx.error(
    "duplicate-setting",
    `"${key}" is already given at line ${first.line}: one ${key} statement per access block`,
    ctx.tok(keyword),
  );
  return true;
}

/**
 * Builds an `access` block from an `accessDecl` node. Reports
 * `duplicate-role` (a role named twice in the header), `unknown-setting`,
 * `duplicate-setting` (also a second `check` or `hide`), `invalid-value`,
 * `invalid-rule-operand` and `invalid-stamp`.
 */
export function readAccess(n: CstNode, ctx: Ctx): AccessDecl {
  const keyword = token(n, "Access");
  const block: AccessDecl = {
    roles: [],
    roleSpans: [],
    ops: [],
    opSpans: [],
    rows: [],
    stamps: [],
    hide: [],
    hideSpans: [],
    settingSpans: {},
    span: ctx.nodeSpan(n, keyword),
  };
  const doc = ctx.docs.docFor(keyword);
  if (doc !== undefined) block.doc = doc;
  for (const r of nodes(n, "role")) {
    const role = nameToken(r);
    if (!role) continue;
    if (block.roles.includes(role.image)) {
      ctx.error("duplicate-role", `Role "${role.image}" is already named by this access block`, ctx.tok(role));
      continue;
    }
    block.roles.push(role.image);
    block.roleSpans.push(ctx.tok(role));
  }
  const misplaced = (key: IToken): boolean => {
    const form = STATEMENTS[key.image];
    if (form === undefined) return false;
    ctx.error("unknown-setting", `"${key.image}" is a statement, written without "=": ${form}`, ctx.tok(key));
    return true;
  };
  eachSetting(
    nodes(n, "setting"),
    ACCESS_SETTINGS,
    "an access block",
    block.settingSpans,
    ctx,
    (_key, v) => {
      for (const item of expectNameList(v, { what: '"ops"', code: "invalid-value" }, ctx) ?? []) {
        block.ops.push(item.name);
        block.opSpans.push(item.span);
      }
    },
    misplaced,
  );
  for (const r of nodes(n, "rowsRule")) {
    const expr = node(r, "ruleExpr");
    const read = expr ? readExpr(expr, ctx) : undefined;
    if (!read) continue;
    const rule: AccessDecl["rows"][number] = { expr: read, span: spanOf(ctx, r) };
    const ops = nodes(r, "op")
      .map((o) => nameToken(o))
      .filter((t): t is IToken => t !== undefined);
    if (token(r, "LParen")) {
      rule.ops = ops.map((t) => t.image);
      rule.opSpans = ops.map((t) => ctx.tok(t));
    }
    block.rows.push(rule);
  }
  for (const c of nodes(n, "checkRule")) {
    if (repeated(block, "check", token(c, "Check"), ctx)) continue;
    const expr = node(c, "ruleExpr");
    const read = expr ? readExpr(expr, ctx) : undefined;
    if (!read) continue;
    block.check = read;
    block.settingSpans["check"] = read.span;
  }
  for (const s of nodes(n, "stampRule")) {
    const stamp = readStamp(s, ctx);
    if (stamp) block.stamps.push(stamp);
  }
  for (const h of nodes(n, "hideRule")) {
    if (repeated(block, "hide", token(h, "Hide"), ctx)) continue;
    const list = node(h, "list");
    block.settingSpans["hide"] = spanOf(ctx, list);
    for (const a of nodes(list, "arg")) {
      const arg = readArg(a, ctx);
      if (arg.key === undefined && arg.value.kind === "name" && !arg.value.negated) {
        block.hide.push(arg.value.name);
        block.hideSpans.push(arg.value.span);
      } else if (arg.value.kind !== "missing") {
        ctx.error("invalid-value", `Expected a column name in the list of "hide", found ${arg.value.raw}`, arg.span);
      }
    }
  }
  return block;
}
