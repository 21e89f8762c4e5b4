/**
 * Puts the declarations a backend prints (interfaces, type aliases,
 * imports, doc comments: one member or statement per line, unindented) in
 * prettier's final form without running prettier: indentation by bracket
 * depth, doc-comment alignment, blank lines as prettier keeps them, long
 * import lists broken one name per line, long unions of string literals
 * and long interface type parameters broken as prettier breaks them. A
 * line it cannot settle (longer than 80 columns once indented) sends its
 * top-level statement to prettier itself, loaded only then, so the output
 * is prettier's in every case; test/golden.test.ts holds every golden file to that (docs/decisions/1321-generated-code-in-final-form.md).
 */

import { PRINT_WIDTH as WIDTH, printDoc, type Doc } from "./doc-printer.js";
import { list, typeParam } from "./ts-docs.js";

/** The net bracket depth a line of code opens, ignoring string literals and a trailing `//` comment. */
function netDepth(code: string): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (quote !== undefined) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "/" && code[i + 1] === "/") break;
    else if (c === "{" || c === "[" || c === "(") depth++;
    else if (c === "}" || c === "]" || c === ")") depth--;
  }
  return depth;
}

/** `import { a, b } from "x";` over the width, as prettier breaks it; undefined when the line is no such list. */
function breakImport(line: string): string[] | undefined {
  const m = /^((?:import|export)(?: type)? )\{ (.*) \}( from "[^"]*";)$/.exec(line);
  if (!m) return undefined;
  return [`${m[1]}{`, ...m[2].split(", ").map((name) => `  ${name},`), `}${m[3]}`];
}

/** `text` split at `separator` where it stands outside strings and brackets, each part trimmed. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote !== undefined) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if ("<{[(".includes(c)) depth++;
    else if (">}])".includes(c)) depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      start = i + separator.length;
      i += separator.length - 1;
    }
  }
  parts.push(text.slice(start).trim());
  return parts;
}

/** `text` split at top-level commas: the arguments or type parameters of one list. */
const splitArgs = (text: string): string[] => splitTopLevel(text, ",");

/**
 * A member `name: Generic<a, b, c>;` over the width, with its type
 * arguments one per line as prettier breaks them (no trailing comma);
 * undefined when the line is no such member or a part still does not fit.
 */
function breakTypeArguments(pad: string, t: string): string[] | undefined {
  const m = /^([A-Za-z_$][\w$]*\??: [A-Za-z_$][\w$.]*)<(.*)>;$/.exec(t);
  if (!m) return undefined;
  const args = splitArgs(m[2]);
  const lines = [`${pad}${m[1]}<`, ...args.map((a, i) => `${pad}  ${a}${i < args.length - 1 ? "," : ""}`), `${pad}>;`];
  return lines.every((l) => l.length <= WIDTH) ? lines : undefined;
}

/**
 * A member `name: { a: A; b: B };` over the width, its object type broken
 * one member per line as prettier breaks it; undefined when the line is no
 * such member or a part still does not fit.
 */
function breakTypeLiteralMember(pad: string, t: string): string[] | undefined {
  const m = /^([A-Za-z_$][\w$]*\??: )\{ (.*) \};$/.exec(t);
  if (!m) return undefined;
  const members = splitTopLevel(m[2], ";").filter((x) => x !== "");
  const lines = [`${pad}${m[1]}{`, ...members.map((x) => `${pad}  ${x};`), `${pad}};`];
  return lines.every((l) => l.length <= WIDTH) ? lines : undefined;
}

/**
 * `export type X = "a" | "b";` over the width, as prettier breaks a union
 * of string literals or bare names (`number | bigint | string`): the
 * members on the next line when they fit there, else one per line after a
 * leading `|`; undefined for any other alias or when a line still does not
 * fit.
 */
function breakUnionAlias(line: string): string[] | undefined {
  const m = /^(export type [A-Za-z_$][\w$]* =) (.*);$/.exec(line);
  if (!m) return undefined;
  const members = splitTopLevel(m[2], " | ");
  if (!members.every((x) => /^"(?:[^"\\]|\\.)*"$|^[A-Za-z_$][\w$]*$/.test(x))) return undefined;
  const lines =
    `  ${m[2]};`.length <= WIDTH || members.length === 1
      ? [m[1], `  ${m[2]};`]
      : [m[1], ...members.map((x, i) => `  | ${x}${i === members.length - 1 ? ";" : ""}`)];
  return lines.every((l) => l.length <= WIDTH) || members.length === 1 ? lines : undefined;
}

/** A type parameter's text (`[const ]N[ extends A | B][ = D]`) as a document; undefined for any other text. */
function typeParamDoc(text: string): Doc | undefined {
  const m = /^((?:const )?[A-Za-z_$][\w$]*)(?: extends (.+?))?(?: = (.+))?$/.exec(text);
  if (!m) return undefined;
  return typeParam(m[1], m[2] === undefined ? undefined : splitTopLevel(m[2], " | "), m[3]);
}

/**
 * `export interface X<A extends …, B …> extends Y {` over the width, laid
 * out as prettier lays it out (its type parameters one per line, each
 * breaking after `extends` or `=` when it still does not fit, ts-docs.ts);
 * undefined when the line is no such header or a line still does not fit.
 */
function breakInterfaceHeader(line: string): string[] | undefined {
  const m = /^(export interface [A-Za-z_$][\w$]*)<(.*)>((?: extends [^{]+)?) \{$/.exec(line);
  if (!m) return undefined;
  const params = splitArgs(m[2]).map(typeParamDoc);
  if (params.some((p) => p === undefined)) return undefined;
  const lines = printDoc([m[1], list("<", params as Doc[], ">", true), m[3], " {"], 0, WIDTH).split("\n");
  return lines.every((l) => l.length <= WIDTH) ? lines : undefined;
}

/**
 * `text` re-indented to prettier's final form, or undefined when some line
 * needs more than re-indenting (the caller then runs prettier).
 */
export function reindent(text: string): string | undefined {
  const body = reindentLines(text.split("\n"));
  return body === undefined ? undefined : body + "\n";
}

/**
 * {@link reindent} over the lines of a text, without the final newline, so
 * a caller that has cut the text into lines neither joins them to cut them
 * again nor copies the result to drop that newline.
 */
function reindentLines(lines: readonly string[]): string | undefined {
  const out: string[] = [];
  let depth = 0;
  let comment = false;
  let pendingBlank = false;
  for (const raw of lines) {
    const t = raw.trim();
    if (t === "") {
      pendingBlank = out.length > 0;
      continue;
    }
    const closes = !comment && /^[}\])]/.test(t);
    if (closes) depth--;
    // prettier keeps one blank line between statements or members, none after an opening or before a closing bracket.
    if (pendingBlank && !closes && !/[{[(]$/.test(out[out.length - 1] ?? "")) out.push("");
    pendingBlank = false;
    const pad = "  ".repeat(Math.max(depth, 0));
    let line: string;
    // prettier never rewraps comments, so their length is theirs.
    const isComment = comment || t.startsWith("/*") || t.startsWith("//");
    // Nor does it break a string: a lone literal argument stays as long as it is (jsonConstant's data).
    const isLiteral = /^(["']).*\1,?$/.test(t) && netDepth(t) === 0;
    if (comment || t.startsWith("/*")) {
      line = comment && t.startsWith("*") ? `${pad} ${t}` : `${pad}${t}`;
      comment = !t.endsWith("*/");
    } else {
      line = `${pad}${t}`;
      depth += netDepth(t) + (closes ? 1 : 0);
    }
    if (line.length > WIDTH && !isComment && !isLiteral) {
      const broken =
        pad === ""
          ? (breakImport(line) ?? breakUnionAlias(line) ?? breakInterfaceHeader(line))
          : (breakTypeArguments(pad, t) ?? breakTypeLiteralMember(pad, t));
      if (!broken) {
        if (process.env.RESC_TRACE_FORMAT) process.stderr.write(`cannot settle: ${line}\n`);
        return undefined;
      }
      out.push(...broken);
    } else out.push(line);
  }
  if (depth !== 0 || comment) return undefined;
  return out.join("\n");
}

/**
 * `text` cut into lines, and at its blank lines that stand between
 * top-level statements (outside brackets and comments): pieces prettier
 * formats alone exactly as it formats them in the file, since it keeps one
 * blank line between statements and lays each out by itself.
 */
function topLevelPieces(text: string): string[][] {
  const pieces: string[][] = [];
  let current: string[] = [];
  let depth = 0;
  let comment = false;
  for (const raw of text.split("\n")) {
    const t = raw.trim();
    if (t === "" && depth === 0 && !comment) {
      if (current.length > 0) pieces.push(current);
      current = [];
      continue;
    }
    current.push(raw);
    if (comment || t.startsWith("/*")) comment = !t.endsWith("*/");
    else depth += netDepth(t);
  }
  if (current.length > 0) pieces.push(current);
  return pieces;
}

/**
 * Whether every line of code in `text` fits in the print width; doc
 * comment lines do not count, since prettier never rewraps a comment.
 * A laid-out piece whose code runs past the width is handed to prettier
 * (`format`), where a group laid out as plain text might break.
 */
export function codeFits(text: string): boolean {
  return text.split("\n").every((l) => l.length <= WIDTH || /^\s*(\/\*\*|\*)/.test(l));
}

/** Loaded on the first piece {@link reindent} cannot settle, never otherwise (a cold start of prettier costs a fifth of a second). */
async function prettierFormat(text: string): Promise<string> {
  if (process.env.RESC_TRACE_FORMAT) process.stderr.write(`prettier fallback: ${text.slice(0, 120)}\n`);
  const { format } = await import("prettier");
  return format(text, { parser: "typescript" });
}

/** `text` without the newlines that end it (prettier ends its output with one; pieces are joined by a blank line). */
function withoutFinalNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * A piece of a module and what it needs: nothing (`final`: a backend laid
 * it out, doc-printer.ts), {@link reindent} statement by statement
 * (`settle`: one member or statement per line, unindented), or prettier
 * (`format`: laid out, but a line ran past the width where prettier may
 * break differently).
 */
export interface ModulePiece {
  readonly text: string;
  readonly form: "final" | "settle" | "format";
}

/**
 * A module (TypeScript) in prettier's final form with default options,
 * from pieces separated by one blank line: a final piece as it is, a piece
 * to settle cut at its top-level statements, each settled by
 * {@link reindent} or, when it cannot, by prettier, so one long name costs
 * the formatting of one statement, not of the whole module. Should prettier
 * refuse a statement alone (the cut fell inside one, say in a multi-line
 * template literal), the whole module goes through it.
 * @throws what prettier throws for text that is not TypeScript
 */
export async function finalFormPieces(pieces: readonly ModulePiece[]): Promise<string> {
  const out: string[] = [];
  try {
    for (const piece of pieces) {
      if (piece.form !== "settle") {
        out.push(withoutFinalNewlines(piece.form === "final" ? piece.text : await prettierFormat(piece.text)));
        continue;
      }
      for (const statement of topLevelPieces(piece.text)) {
        out.push(reindentLines(statement) ?? withoutFinalNewlines(await prettierFormat(statement.join("\n"))));
      }
    }
  } catch {
    return prettierFormat(pieces.map((p) => p.text).join("\n\n"));
  }
  return out.join("\n\n") + "\n";
}

/**
 * `text` (TypeScript) in prettier's final form with default options:
 * {@link reindent} for each top-level statement that it settles, prettier
 * for the others ({@link finalFormPieces}).
 */
export async function finalForm(text: string): Promise<string> {
  return finalFormPieces([{ text, form: "settle" }]);
}
