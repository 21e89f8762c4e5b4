/**
 * Substring matching with LIKE metacharacters escaped (spec guarantee 1: "a
 * search for a percent sign matches the literal character"). Used by the
 * `contains`/`startswith`/`endswith` operators and by `?search=`.
 */

/** Escapes `\`, `%` and `_` with a backslash, so the text matches only itself inside a LIKE pattern. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => "\\" + c);
}

/** Where an escaped text must sit in the subject. */
export type LikePosition = "anywhere" | "start" | "end";

/** The LIKE pattern (to be bound, never inlined) matching `text` literally at `position`. */
export function likePattern(text: string, position: LikePosition): string {
  const e = escapeLike(text);
  return position === "start" ? `${e}%` : position === "end" ? `%${e}` : `%${e}%`;
}

/**
 * Case-insensitive match of `subject` (SQL of a text value) against an
 * escaped pattern placeholder. The escape character is spelled `E'\\'` so
 * the SQL means one backslash whatever `standard_conforming_strings` says.
 */
export function ilikeEscaped(subject: string, patternPlaceholder: string): string {
  return `${subject} ILIKE ${patternPlaceholder} ESCAPE E'\\\\'`;
}
