/**
 * Printing declarations and blocks: the file, `api`, `auth`, `generate`, `enum`,
 * `domain`, `table` with its columns, table attributes, resource block and
 * access blocks, and settings blocks (docs/decisions/1100-formatter-layout.md,
 * docs/decisions/1367-access-rules.md).
 */
import type { CstNode, IToken } from "chevrotain";
import { nameToken, node, nodes, token, tokens } from "../to-ir/cst.js";
import { renderBody, type BodyOptions, type Member, type Row, type RowLine } from "./layout.js";
import { CONTINUATION, INDENT, PRINT_WIDTH, type Printer } from "./printer.js";
import { printAttribute, printItems, printType, printValue } from "./print-values.js";
import { printCheck, printRows, printStampValue } from "./print-rules.js";

function byOffset(a: CstNode | IToken, b: CstNode | IToken): number {
  return start(a) - start(b);
}

function start(x: CstNode | IToken): number {
  return "children" in x ? (x.location?.startOffset ?? 0) : x.startOffset;
}

/** A row that is just text (a declaration, a table attribute, an enum value). */
function plain(kind: string, text: string): Row {
  return { kind, cells: [], rest: text, more: [] };
}

/**
 * `head { members }`: members one per line at `indent + INDENT`, or `head {}`
 * when there is nothing inside. `headLast` is the last token of the head.
 */
function block(
  p: Printer,
  head: string,
  headLast: number,
  open: number,
  members: Member[],
  close: number,
  indent: string,
  options: BodyOptions = {},
): string {
  const opened = p.glue(head, headLast, open, " ", "{", indent + CONTINUATION);
  const body = renderBody(p, members, open, close, indent + INDENT, options);
  if (body.lines.length === 0 && body.openComment === "") return `${opened}}`;
  const first = body.openComment === "" ? opened : `${opened} ${body.openComment}`;
  return [first, ...body.lines, `${indent}}`].join("\n");
}

/**
 * `head { a b }` on one line, when the block was written on one line, holds
 * no comment and fits the print width; otherwise undefined.
 */
function inlineBlock(
  p: Printer,
  head: string,
  headLast: number,
  open: number,
  items: () => string[],
  separator: string,
  close: number,
  indent: string,
): string | undefined {
  if (p.line(open) !== p.line(close) || p.trivia.hasComments(headLast, close)) return undefined;
  const inner = items();
  const text = inner.length === 0 ? `${head} {}` : `${head} { ${inner.join(separator)} }`;
  if (text.includes("\n") || indent.length + text.length > PRINT_WIDTH) return undefined;
  return text;
}

/** `key = value` as a row: the key is the aligned cell. */
function settingRow(p: Printer, n: CstNode, indent: string): Row {
  const cont = indent + CONTINUATION;
  const key = token(n, "key")!;
  const eq = p.at(token(n, "Equals")!);
  const v = node(n, "value")!;
  const rest = p.inline(p.at(key), eq, cont) + p.glue("=", eq, p.first(v), " ", printValue(p, v, indent), cont);
  return { kind: "setting", cells: [key.image], rest, more: [] };
}

function settingMember(p: Printer, n: CstNode): Member {
  return { first: p.first(n), last: p.last(n), section: 0, print: (indent) => settingRow(p, n, indent) };
}

/** `{ key = value … }` after `head`: one line when written so, otherwise one setting per line, `=` aligned. */
function settingsBlock(p: Printer, head: string, headLast: number, n: CstNode, indent: string): string {
  const open = p.at(token(n, "LCurly")!);
  const close = p.at(token(n, "RCurly")!);
  const settings = nodes(n, "setting");
  const one = inlineBlock(
    p,
    head,
    headLast,
    open,
    () =>
      settings.map((s) => {
        const r = settingRow(p, s, indent);
        return `${r.cells[0]} ${r.rest}`;
      }),
    ", ",
    close,
    indent,
  );
  return (
    one ??
    block(
      p,
      head,
      headLast,
      open,
      settings.map((s) => settingMember(p, s)),
      close,
      indent,
    )
  );
}

function printApi(p: Printer, n: CstNode, indent: string): string {
  const kw = p.at(token(n, "Api")!);
  const members: Member[] = [
    ...nodes(n, "setting").map((s) => settingMember(p, s)),
    ...nodes(n, "securityScheme").map((s): Member => ({
      first: p.first(s),
      last: p.last(s),
      section: 0,
      print: (inner) => plain("security", printSecurity(p, s, inner)),
    })),
  ].sort((a, b) => a.first - b.first);
  return block(p, "api", kw, p.at(token(n, "LCurly")!), members, p.at(token(n, "RCurly")!), indent);
}

function printSecurity(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Security")!);
  const name = p.at(nameToken(node(n, "name"))!);
  const head = p.glue("security", kw, name, " ", p.tokens[name]!.image, cont);
  return settingsBlock(p, head, name, node(n, "settingsBlock")!, indent);
}

function printGenerate(p: Printer, n: CstNode, indent: string): string {
  return settingsBlock(p, "generate", p.at(token(n, "Generate")!), node(n, "settingsBlock")!, indent);
}

function printEnum(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Enum")!);
  const name = p.at(nameToken(node(n, "name"))!);
  let head = p.glue("enum", kw, name, " ", p.tokens[name]!.image, cont);
  let prev = name;
  for (const a of nodes(n, "attribute")) {
    head = p.glue(head, prev, p.first(a), " ", printAttribute(p, a, indent), cont);
    prev = p.last(a);
  }
  const open = p.at(token(n, "LCurly")!);
  const close = p.at(token(n, "RCurly")!);
  const members = [...nodes(n, "member").map((m) => nameToken(m)!), ...tokens(n, "member")]
    .sort(byOffset)
    .map((t) => p.at(t));
  const one = inlineBlock(p, head, prev, open, () => members.map((i) => p.tokens[i]!.image), " ", close, indent);
  if (one !== undefined) return one;
  const rows = members.map((i): Member => ({
    first: i,
    last: i,
    section: 0,
    print: () => plain("value", p.tokens[i]!.image),
  }));
  return block(p, head, prev, open, rows, close, indent);
}

/**
 * `domain name type @check(…)` on one line: at the top level a domain's
 * attributes never need the line breaks a column's may.
 */
function printDomain(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Domain")!);
  const name = p.at(nameToken(node(n, "name"))!);
  const type = node(n, "typeRef")!;
  let out = p.glue("domain", kw, name, " ", p.tokens[name]!.image, cont);
  out = p.glue(out, name, p.first(type), " ", printType(p, type, indent), cont);
  let prev = p.last(type);
  for (const a of nodes(n, "attribute")) {
    out = p.glue(out, prev, p.first(a), " ", printAttribute(p, a, indent), cont);
    prev = p.last(a);
  }
  return out;
}

/**
 * A column: name and type are aligned cells; attributes follow on the same
 * line, and a line break the source has between two attributes (or before
 * the first) is kept, the next attributes continuing under the first
 * attribute column. Keeping the break is also what keeps a column called
 * `domain` a column (docs/decisions/0103-keywords-newlines-and-duplicates.md).
 */
function columnRow(p: Printer, n: CstNode, indent: string): Row {
  const cont = indent + CONTINUATION;
  const name = p.at(nameToken(node(n, "name"))!);
  const type = node(n, "typeRef")!;
  const typeCell = p.inline(name, p.first(type), cont) + printType(p, type, indent);
  const lines: RowLine[] = [{ text: "" }];
  let prev = p.last(type);
  const add = (line: RowLine, text: string): void => {
    line.text = line.text === "" ? text : `${line.text} ${text}`;
  };
  for (const a of nodes(n, "attribute").sort(byOffset)) {
    const run = p.trivia.between(prev, p.first(a));
    let cur = lines[lines.length - 1]!;
    let broken = false;
    for (const item of run.items) {
      if (broken || item.newlinesBefore > 0) {
        cur = { text: "" };
        lines.push(cur);
        broken = false;
      }
      if (item.comment.kind === "block") add(cur, item.comment.text);
      else {
        cur.comment = item.comment.text;
        broken = true;
      }
    }
    if (broken || run.newlinesAfter > 0) {
      cur = { text: "" };
      lines.push(cur);
    }
    add(cur, printAttribute(p, a, indent));
    prev = p.last(a);
  }
  const [first, ...more] = lines;
  const rest = first!.comment === undefined ? first!.text : [first!.text, first!.comment].filter((x) => x).join("  ");
  return { kind: "column", cells: [p.tokens[name]!.image, typeCell], rest, more };
}

/** Sections of a table body: columns, then table attributes, then the resource block, then access blocks. */
const COLUMNS = 0;
const TABLE_ATTRIBUTES = 1;
const RESOURCES = 2;
const ACCESS = 3;

/**
 * `resource "/path" { … }`: settings with their `=` aligned and declared
 * actions, in source order; one line when written so and holding no action.
 */
function printResource(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Resource")!);
  const pathTok = token(n, "path") ?? nameToken(node(n, "unquotedPath"))!;
  const path = p.at(pathTok);
  const head = p.glue("resource", kw, path, " ", pathTok.image, cont);
  const body = node(n, "resourceBody")!;
  const actions = nodes(body, "actionDecl");
  if (actions.length === 0) return settingsBlock(p, head, path, body, indent);
  const members: Member[] = [
    ...nodes(body, "setting").map((s) => settingMember(p, s)),
    ...actions.map((a): Member => ({
      first: p.first(a),
      last: p.last(a),
      section: 0,
      print: (inner) => plain("action", printAction(p, a, inner)),
    })),
  ].sort((a, b) => a.first - b.first);
  return block(p, head, path, p.at(token(body, "LCurly")!), members, p.at(token(body, "RCurly")!), indent);
}

/** `action name @collection { fields } returns { fields }`: each field block as a table's columns are laid out. */
function printAction(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Action")!);
  const name = p.at(nameToken(node(n, "name"))!);
  let head = p.glue("action", kw, name, " ", p.tokens[name]!.image, cont);
  let prev = name;
  for (const a of nodes(n, "attribute")) {
    head = p.glue(head, prev, p.first(a), " ", printAttribute(p, a, indent), cont);
    prev = p.last(a);
  }
  let out = fieldBlock(p, head, prev, node(n, "input")!, indent);
  const returns = token(n, "Returns");
  const output = node(n, "output");
  if (returns && output) {
    const at = p.at(returns);
    out = fieldBlock(p, p.glue(out, p.last(node(n, "input")!), at, " ", "returns", cont), at, output, indent);
  }
  return out;
}

/** `{ name type … }` after `head`: one line when written so, otherwise one field per line, types aligned. */
function fieldBlock(p: Printer, head: string, headLast: number, n: CstNode, indent: string): string {
  const open = p.at(token(n, "LCurly")!);
  const close = p.at(token(n, "RCurly")!);
  const fields = nodes(n, "columnDecl");
  const one = inlineBlock(
    p,
    head,
    headLast,
    open,
    () =>
      fields.map((f) => {
        const r = columnRow(p, f, indent);
        return [...r.cells, r.rest].filter((x) => x !== "").join(" ");
      }),
    ", ",
    close,
    indent,
  );
  if (one !== undefined) return one;
  const members = fields.map((f): Member => ({
    first: p.first(f),
    last: p.last(f),
    section: 0,
    print: (inner) => columnRow(p, f, inner),
  }));
  return block(p, head, headLast, open, members, close, indent);
}

function printTable(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Table")!);
  const name = p.at(nameToken(node(n, "name"))!);
  const head = p.glue("table", kw, name, " ", p.tokens[name]!.image, cont);
  const member = (x: CstNode, section: number, print: (indent: string) => Row): Member => ({
    first: p.first(x),
    last: p.last(x),
    section,
    print,
  });
  const members = [
    ...nodes(n, "columnDecl").map((c) => member(c, COLUMNS, (i) => columnRow(p, c, i))),
    ...nodes(n, "blockAttribute").map((b) =>
      member(b, TABLE_ATTRIBUTES, (i) => plain("attribute", printAttribute(p, b, i))),
    ),
    ...nodes(n, "resourceDecl").map((r) => member(r, RESOURCES, (i) => plain("resource", printResource(p, r, i)))),
    ...nodes(n, "accessDecl").map((a) => member(a, ACCESS, (i) => plain("access", printAccess(p, a, i)))),
  ].sort((a, b) => a.first - b.first);
  return block(p, head, name, p.at(token(n, "LCurly")!), members, p.at(token(n, "RCurly")!), indent, {
    sections: true,
    // Access blocks that span lines stand apart, as top-level declarations do.
    blankBetween: (a, b) =>
      a.kind === "access" && b.kind === "access" && (a.rest.includes("\n") || b.rest.includes("\n")),
  });
}

/** A `claim name type @path(…)` row: name and type are aligned cells, as a column's are. */
function claimRow(p: Printer, n: CstNode, indent: string): Row {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Claim")!);
  const name = p.at(nameToken(node(n, "name"))!);
  const type = node(n, "typeRef")!;
  let rest = "";
  let prev = p.last(type);
  for (const a of nodes(n, "attribute").sort(byOffset)) {
    rest =
      rest === ""
        ? p.inline(prev, p.first(a), cont) + printAttribute(p, a, indent)
        : p.glue(rest, prev, p.first(a), " ", printAttribute(p, a, indent), cont);
    prev = p.last(a);
  }
  return {
    kind: "claim",
    cells: [
      p.glue("claim", kw, name, " ", p.tokens[name]!.image, cont),
      p.inline(name, p.first(type), cont) + printType(p, type, indent),
    ],
    rest,
    more: [],
  };
}

/**
 * `auth { settings  claims  jwt { … }  database { … } }` (docs/decisions/1367-access-rules.md,
 * 1368-database-row-level-security.md):
 * members in source order, settings with their `=` aligned, claims with
 * their names and types aligned; one line when written so.
 */
function printAuth(p: Printer, n: CstNode, indent: string): string {
  const kw = p.at(token(n, "Auth")!);
  const open = p.at(token(n, "LCurly")!);
  const close = p.at(token(n, "RCurly")!);
  const jwt = (j: CstNode, inner: string) =>
    settingsBlock(p, "jwt", p.at(token(j, "Jwt")!), node(j, "settingsBlock")!, inner);
  const database = (d: CstNode, inner: string) =>
    settingsBlock(p, "database", p.at(token(d, "Database")!), node(d, "settingsBlock")!, inner);
  const one = inlineBlock(
    p,
    "auth",
    kw,
    open,
    () =>
      [
        ...nodes(n, "setting").map((s) => ({
          at: p.first(s),
          text: ((r) => `${r.cells[0]} ${r.rest}`)(settingRow(p, s, indent)),
        })),
        ...nodes(n, "claimDecl").map((c) => ({
          at: p.first(c),
          text: ((r) => [...r.cells, r.rest].filter((x) => x !== "").join(" "))(claimRow(p, c, indent)),
        })),
        ...nodes(n, "jwtBlock").map((j) => ({ at: p.first(j), text: jwt(j, indent) })),
        ...nodes(n, "databaseBlock").map((d) => ({ at: p.first(d), text: database(d, indent) })),
      ]
        .sort((a, b) => a.at - b.at)
        .map((x) => x.text),
    ", ",
    close,
    indent,
  );
  if (one !== undefined) return one;
  const members: Member[] = [
    ...nodes(n, "setting").map((s) => settingMember(p, s)),
    ...nodes(n, "claimDecl").map((c): Member => ({
      first: p.first(c),
      last: p.last(c),
      section: 0,
      print: (inner) => claimRow(p, c, inner),
    })),
    ...nodes(n, "jwtBlock").map((j): Member => ({
      first: p.first(j),
      last: p.last(j),
      section: 0,
      print: (inner) => plain("jwt", jwt(j, inner)),
    })),
    ...nodes(n, "databaseBlock").map((d): Member => ({
      first: p.first(d),
      last: p.last(d),
      section: 0,
      print: (inner) => plain("database", database(d, inner)),
    })),
  ].sort((a, b) => a.first - b.first);
  return block(p, "auth", kw, open, members, close, indent);
}

/** The members of an access block, each printing one statement. */
function accessMembers(p: Printer, n: CstNode): Member[] {
  const statement = (x: CstNode, print: (indent: string) => Row): Member => ({
    first: p.first(x),
    last: p.last(x),
    section: 0,
    print,
  });
  return [
    ...nodes(n, "setting").map((s) => settingMember(p, s)),
    ...nodes(n, "rowsRule").map((r) => statement(r, (i) => plain("rows", printRows(p, r, i)))),
    ...nodes(n, "checkRule").map((c) => statement(c, (i) => plain("check", printCheck(p, c, i)))),
    ...nodes(n, "stampRule").map((s) =>
      statement(s, (i): Row => {
        const kw = p.at(token(s, "Stamp")!);
        const column = p.at(nameToken(node(s, "column"))!);
        const value = printStampValue(p, s, i);
        return {
          kind: "stamp",
          cells: [p.glue("stamp", kw, column, " ", value.column, i + CONTINUATION)],
          rest: value.rest,
          more: [],
        };
      }),
    ),
    ...nodes(n, "hideRule").map((h) =>
      statement(h, (i) => {
        const kw = p.at(token(h, "Hide")!);
        const list = node(h, "list")!;
        const open = p.at(token(list, "LBracket")!);
        const items = printItems(p, open, nodes(list, "arg"), p.at(token(list, "RBracket")!), i);
        return plain("hide", p.glue("hide", kw, open, " ", items, i + CONTINUATION));
      }),
    ),
  ].sort((a, b) => a.first - b.first);
}

/**
 * `access role, … { ops = […]  rows …  check …  stamp …  hide […] }`
 * (docs/decisions/1367-access-rules.md): statements in source order, the
 * `=` of stamps aligned; one line when written so and short enough.
 */
function printAccess(p: Printer, n: CstNode, indent: string): string {
  const cont = indent + CONTINUATION;
  const kw = p.at(token(n, "Access")!);
  const roles = nodes(n, "role").map((r) => p.at(nameToken(r)!));
  let head = "access";
  let prev = kw;
  roles.forEach((r, i) => {
    if (i > 0) head += ",";
    head = p.glue(head, prev, r, " ", p.tokens[r]!.image, cont);
    prev = r;
  });
  const open = p.at(token(n, "LCurly")!);
  const close = p.at(token(n, "RCurly")!);
  const members = accessMembers(p, n);
  const one = inlineBlock(
    p,
    head,
    prev,
    open,
    () =>
      members.map((m) => {
        const r = m.print(indent);
        return [...r.cells, r.rest].filter((x) => x !== "").join(" ");
      }),
    ", ",
    close,
    indent,
  );
  return one ?? block(p, head, prev, open, members, close, indent);
}

const DECLARATIONS: Record<string, (p: Printer, n: CstNode, indent: string) => string> = {
  apiDecl: printApi,
  authDecl: printAuth,
  generateDecl: printGenerate,
  enumDecl: printEnum,
  domainDecl: printDomain,
  tableDecl: printTable,
};

/** Prints a whole file from its CST root: declarations in source order, a blank line around any that spans lines. */
export function printSchema(p: Printer, root: CstNode): string {
  const members: Member[] = [];
  for (const [rule, print] of Object.entries(DECLARATIONS)) {
    for (const d of nodes(root, rule)) {
      members.push({
        first: p.first(d),
        last: p.last(d),
        section: 0,
        print: (i) => plain("declaration", print(p, d, i)),
      });
    }
  }
  members.sort((a, b) => a.first - b.first);
  const body = renderBody(p, members, -1, p.tokens.length, "", {
    blankBetween: (a, b) => a.rest.includes("\n") || b.rest.includes("\n"),
  });
  return body.lines.length === 0 ? "" : `${body.lines.join("\n")}\n`;
}
