/**
 * How schema names are spelled as TypeScript identifiers in everything
 * generated: one rule (`film_actor` → `FilmActor`, `filmActor`), so a row
 * type, a client member and an OpenAPI schema name agree across backends.
 */

function words(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
}

/** `film_actor` → `FilmActor`; a leading digit gets a `T` prefix so the result is an identifier. */
export function pascalCase(name: string): string {
  const joined = words(name)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("");
  return /^[0-9]/.test(joined) ? `T${joined}` : joined || "T";
}

/** `task_watchers` → `taskWatchers`; a leading digit gets an `r` prefix. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return /^T[0-9]/.test(pascal) ? `r${pascal.slice(1)}` : pascal[0]!.toLowerCase() + pascal.slice(1);
}
