/**
 * Puts the declarations a backend prints (interfaces, type aliases,
 * imports, doc comments: one member or statement per line, unindented) in
 * prettier's final form without running prettier: indentation by bracket
 * depth, doc-comment alignment, blank lines as prettier keeps them, long
 * import lists broken one name per line, long unions of string literals
 * and long interface type parameters broken as prettier breaks them. A
 * line it cannot settle (longer than 80 columns once indented) sends the
 * text to prettier itself, loaded only then, so the output is prettier's in
 * every case; test/golden.test.ts holds every golden file to that (docs/decisions/1321-generated-code-in-final-form.md).
 */

const WIDTH = 80;

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
 * `export type X = "a" | "b";` over the width, as prettier breaks a union
 * of string literals: the members on the next line when they fit there,
 * else one per line after a leading `|`; undefined for any other alias or
 * when a line still does not fit.
 */
function breakUnionAlias(line: string): string[] | undefined {
  const m = /^(export type [A-Za-z_$][\w$]* =) (.*);$/.exec(line);
  if (!m) return undefined;
  const members = splitTopLevel(m[2], " | ");
  if (!members.every((x) => /^"(?:[^"\\]|\\.)*"$/.test(x))) return undefined;
  const lines =
    `  ${m[2]};`.length <= WIDTH || members.length === 1
      ? [m[1], `  ${m[2]};`]
      : [m[1], ...members.map((x, i) => `  | ${x}${i === members.length - 1 ? ";" : ""}`)];
  return lines.every((l) => l.length <= WIDTH) || members.length === 1 ? lines : undefined;
}

/**
 * `export interface X<A extends …, B …> extends Y {` over the width, as
 * prettier breaks it: one type parameter per line with a trailing comma;
 * undefined when the line is no such header or a parameter still does not fit.
 */
function breakInterfaceHeader(line: string): string[] | undefined {
  const m = /^(export interface [A-Za-z_$][\w$]*)<(.*)>((?: extends [^{]+)?) \{$/.exec(line);
  if (!m) return undefined;
  const lines = [`${m[1]}<`, ...splitArgs(m[2]).map((p) => `  ${p},`), `>${m[3]} {`];
  return lines.every((l) => l.length <= WIDTH) ? lines : undefined;
}

/**
 * `text` re-indented to prettier's final form, or undefined when some line
 * needs more than re-indenting (the caller then runs prettier).
 */
export function reindent(text: string): string | undefined {
  const out: string[] = [];
  let depth = 0;
  let comment = false;
  let pendingBlank = false;
  for (const raw of text.split("\n")) {
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
          : breakTypeArguments(pad, t);
      if (!broken) {
        if (process.env.RESC_TRACE_FORMAT) process.stderr.write(`cannot settle: ${line}\n`);
        return undefined;
      }
      out.push(...broken);
    } else out.push(line);
  }
  if (depth !== 0 || comment) return undefined;
  return out.join("\n") + "\n";
}

/**
 * `text` (TypeScript) in prettier's final form with default options:
 * {@link reindent} when it settles every line, else prettier itself.
 */
export async function finalForm(text: string): Promise<string> {
  const fast = reindent(text);
  if (fast !== undefined) return fast;
  if (process.env.RESC_TRACE_FORMAT) process.stderr.write(`prettier fallback: ${text.slice(0, 120)}\n`);
  const { format } = await import("prettier");
  return format(text, { parser: "typescript" });
}
