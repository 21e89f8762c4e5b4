/**
 * Spelling helpers shared by the backends that print TypeScript (hono,
 * client, cli-tree), so every generated file quotes keys, writes doc
 * comments and spells value types the same way.
 */
import type { ValueKind } from "../../runtime/descriptor.js";

/**
 * The TypeScript type of a served value of each kind, the JSON forms of
 * docs/http.md (decision 0209): numeric and temporal values as strings,
 * bigint as a number, jsonb as `JsonValue`. Shared by the Hono row types and
 * the typed client so the two can never disagree.
 */
export const WIRE_TYPE: Readonly<Record<ValueKind, string>> = Object.freeze({
  text: "string",
  integer: "number",
  bigint: "number",
  numeric: "string",
  float: "number",
  boolean: "boolean",
  date: "string",
  timestamptz: "string",
  timestamp: "string",
  time: "string",
  uuid: "string",
  jsonb: "JsonValue",
  bytea: "string",
  enum: "string",
  other: "string",
});

/** A property key: bare when it is an identifier, else a string literal. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

/**
 * A TSDoc block for `text`, or nothing; `*\/` inside the text is broken so
 * it cannot end the comment. Each line starts with `pad` (the indentation
 * of the member it documents) and the block ends with a newline.
 */
export function docComment(text: string | undefined, pad = ""): string {
  if (text === undefined || text.trim() === "") return "";
  const body = text
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((l) => ` * ${l}`.trimEnd());
  return `${pad}/**\n${body.map((l) => pad + l).join("\n")}\n${pad} */\n`;
}

/**
 * How often `c` occurs in `text`, without building substrings (the text may
 * be megabytes), counting no further than `limit + 1`: enough to compare.
 */
function count(text: string, c: string, limit = Infinity): number {
  let n = 0;
  for (let i = text.indexOf(c); i !== -1 && n <= limit; i = text.indexOf(c, i + 1)) n++;
  return n;
}

/**
 * `text` as a TypeScript string literal spelled as prettier spells it:
 * double quotes unless the text holds more double than single quotes (a
 * JSON text always does), escaping backslashes, the enclosing quote and
 * line breaks; other characters (U+2028 included) stay as they are, as
 * prettier leaves them.
 */
export function stringLiteral(text: string): string {
  // A JSON text has few single quotes and a million double ones: count those only as far as the comparison needs.
  const singles = count(text, "'");
  const q = count(text, '"', singles) > singles ? "'" : '"';
  let escaped = text.replace(q === "'" ? /[\\']/g : /[\\"]/g, "\\$&");
  if (/[\n\r]/.test(escaped)) escaped = escaped.replace(/\n/g, "\\n").replace(/\r/g, "\\r");
  return `${q}${escaped}${q}`;
}

/**
 * `<declaration> = JSON.parse("…");` holding `value` (plain data) as JSON
 * text, in prettier's final form: on one line when it fits in 80 columns,
 * else the string on a line of its own. Large generated data travels so
 * because V8 parses JSON faster than the same object as code, TypeScript
 * does not type-check it, and nothing has to format it
 * (docs/decisions/1321-generated-code-in-final-form.md). JSON's rules
 * apply: undefined members are left out, a non-finite number becomes null.
 */
export function jsonConstant(declaration: string, value: unknown): string {
  const literal = stringLiteral(JSON.stringify(value));
  const flat = `${declaration} = JSON.parse(${literal});`;
  return flat.length <= 80 ? flat : `${declaration} = JSON.parse(\n  ${literal},\n);`;
}
