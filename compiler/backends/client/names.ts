/**
 * Spellings of schema names in the generated client and command tree.
 * Type stems follow compiler/case.ts, the rule every backend shares, so a
 * row type has one name across the generated code.
 */

import { camelCase, pascalCase } from "../../case.js";

export { camelCase, pascalCase };

function words(name: string): string[] {
  return name.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
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
