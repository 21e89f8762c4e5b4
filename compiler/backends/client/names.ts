/**
 * Spellings of schema names in the generated client and command tree.
 * Kept apart from the Hono backend's helpers so the packages can evolve
 * independently; type stems follow the same rule (`film_actor` → `FilmActor`)
 * so a row type has one name across the generated code.
 */

function words(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
}

/** `film_actor` → `FilmActor`; a leading digit gets a `T` prefix so the result is an identifier. */
export function pascalCase(name: string): string {
  const joined = words(name)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");
  return /^[0-9]/.test(joined) ? `T${joined}` : joined || "T";
}

/** `task_watchers` → `taskWatchers`: the member name of a resource on the client. */
export function camelCase(name: string): string {
  const pascal = pascalCase(name);
  return /^T[0-9]/.test(pascal) ? `r${pascal.slice(1)}` : pascal[0].toLowerCase() + pascal.slice(1);
}

/** `TASK_WATCHERS`-style constant stem. */
export function constantCase(name: string): string {
  return words(name)
    .map((w) => w.toUpperCase())
    .join("_");
}

export { propertyKey, docComment } from "../ts-text.js";

/** The resource's name in commands and on the client: its path without the slash (`/tasks` → `tasks`). */
export function resourceName(path: string): string {
  return path.replace(/^\//, "");
}
