/**
 * Spelling helpers shared by the backends that print TypeScript (hono,
 * client, cli-tree), so every generated file quotes keys and writes doc
 * comments the same way.
 */

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
