/**
 * The lexical layer of the filter grammar: quoted values, value lists and
 * the splitting of a group into its children. Pure string work; what the
 * pieces mean is decided by the callers. The rules, with examples, are in
 * docs/decisions/0300-filter-syntax.md.
 */

/** A lexical result: the value, or a sentence saying what is malformed. */
export type Lexed<T> = { ok: true; value: T } | { ok: false; detail: string };

const ok = <T>(value: T): Lexed<T> => ({ ok: true, value });
const fail = (detail: string): Lexed<never> => ({ ok: false, detail });

/**
 * Reads the double-quoted string opening at `start`. Inside it `\"` stands
 * for a quote and `\\` for a backslash; any other backslash is refused, so
 * a future escape can be added without changing what existing URLs mean.
 * @returns the unescaped content and the index just past the closing quote
 */
function readQuoted(text: string, start: number): Lexed<{ content: string; end: number }> {
  let content = "";
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i];
    if (c === '"') return ok({ content, end: i + 1 });
    if (c === "\\") {
      const next = text[i + 1];
      if (next !== '"' && next !== "\\") return fail('inside quotes only \\" and \\\\ are escapes');
      content += next;
      i++;
    } else {
      content += c;
    }
  }
  return fail("unterminated double quote");
}

/**
 * Reads one value: a value opening with `"` is a quoted string that must
 * span the whole text; any other text is the value as written.
 */
export function readScalar(text: string): Lexed<string> {
  if (!text.startsWith('"')) return ok(text);
  const q = readQuoted(text, 0);
  if (!q.ok) return q;
  if (q.value.end !== text.length) return fail("text after the closing quote");
  return ok(q.value.content);
}

/**
 * Reads a value list: items separated by commas, optionally wrapped in one
 * pair of parentheses (`a,b` and `(a,b)` are the same list; the wrapped
 * form is what a group needs). An item is quoted (`"a,b"`) or plain; a plain
 * item may not contain `"`, `(` or `)`. Empty text (or `()`) is the empty
 * list; `a,` is the two items `a` and the empty string.
 */
export function readList(text: string): Lexed<string[]> {
  let inner = text;
  if (text.startsWith("(")) {
    if (!text.endsWith(")") || text.length < 2) return fail("a list opened with ( must end with )");
    inner = text.slice(1, -1);
  }
  if (inner === "") return ok([]);
  const items: string[] = [];
  let i = 0;
  for (;;) {
    if (inner[i] === '"') {
      const q = readQuoted(inner, i);
      if (!q.ok) return q;
      items.push(q.value.content);
      i = q.value.end;
      if (i < inner.length && inner[i] !== ",")
        return fail("a quoted list item must be followed by a comma or the end");
    } else {
      const comma = inner.indexOf(",", i);
      const end = comma < 0 ? inner.length : comma;
      const item = inner.slice(i, end);
      if (/["()]/.test(item))
        return fail(`list item ${JSON.stringify(item)} must be double-quoted (it contains " ( or ))`);
      items.push(item);
      i = end;
    }
    if (i >= inner.length) return ok(items);
    i++; // past the comma; a trailing comma leaves one empty item
    if (i === inner.length) {
      items.push("");
      return ok(items);
    }
  }
}

const CLOSERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };

/**
 * Splits the inside of a group at the commas that are not nested in
 * brackets (`()`, `[]`, `{}`) or inside a quoted string. Brackets must
 * balance and quotes must close; `and(a,b)` and `in.(G,PG)` and a JSON
 * document `{"a":1,"b":2}` thereby stay one child each.
 */
export function splitChildren(inner: string): Lexed<string[]> {
  const children: string[] = [];
  const stack: string[] = [];
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '"') {
      const q = readQuoted(inner, i);
      if (!q.ok) return q;
      i = q.value.end - 1;
    } else if (c in CLOSERS) {
      stack.push(CLOSERS[c]);
    } else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) return fail(`unbalanced ${c}`);
    } else if (c === "," && stack.length === 0) {
      children.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  if (stack.length > 0) return fail(`missing ${stack[stack.length - 1]}`);
  children.push(inner.slice(start));
  return ok(children);
}

/**
 * The inside of `(…)` when `text` opens with `(` and the parenthesis that
 * closes it is the last character; `(a),(b)` is refused, and so are
 * brackets that close out of order.
 */
export function unwrapGroup(text: string): Lexed<string> {
  if (!text.startsWith("(")) return fail("a group is written (child,child,…)");
  const stack: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const q = readQuoted(text, i);
      if (!q.ok) return q;
      i = q.value.end - 1;
    } else if (c in CLOSERS) {
      stack.push(CLOSERS[c]);
    } else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) return fail(`unbalanced ${c}`);
      if (stack.length === 0)
        return i === text.length - 1 ? ok(text.slice(1, -1)) : fail("text after the group's closing )");
    }
  }
  return fail(`missing ${stack[stack.length - 1]}`);
}
