/**
 * TypeScript spellings of schema names in generated code.
 */

/** `film_actor` → `FilmActor`: the type-name stem of a table's row, create and update types. */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const joined = words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
  return /^[0-9]/.test(joined) ? `T${joined}` : joined || "T";
}

export { propertyKey, docComment } from "../ts-text.js";
