/** Comparing pulled files (docs/decisions/1200-pull.md, "Fixpoint"). */

/**
 * The declarations of a pulled file: without the comments on what was left out (the second database lacks what
 * was left out of the first), blank runs squeezed.
 */
export function declarations(text: string): string {
  return text
    .split("\n")
    .filter((l) => !/^\s*\/\/ left out:/.test(l))
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}
