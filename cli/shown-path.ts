import path from "node:path";

/**
 * How diagnostics name `file`: relative to the working directory, or as
 * given when it is the directory itself. A module of its own so the
 * compiled-schema cache can key its entries by it without loading the
 * compiler (cli/schema-cache.ts).
 */
export function shownPath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
