/**
 * TypeScript spellings of schema names in generated code.
 */

/** `film_actor` → `FilmActor`: the type-name stem of a table's row, create and update types. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  return /^[0-9]/.test(joined) ? `T${joined}` : joined || "T";
}

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
