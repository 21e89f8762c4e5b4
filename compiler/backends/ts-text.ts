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

/** A TSDoc block for `text`, or nothing; `*\/` inside the text is broken so it cannot end the comment. */
export function docComment(text: string | undefined): string {
  if (text === undefined || text.trim() === "") return "";
  const body = text
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((l) => ` * ${l}`.trimEnd());
  return `/**\n${body.join("\n")}\n */\n`;
}
