/**
 * One-byte copies of the texts the grammar cuts from a source
 * (docs/decisions/1354-one-byte-names.md). V8 stores a string of Latin-1
 * characters one byte per character, any other two bytes per character,
 * and a substring keeps its parent's representation. So when a `.resource`
 * file holds a single character above U+00FF (a `ı` in an `@map`, an em
 * dash in a comment), every name cut from it is two-byte, and so is every
 * text built with one: each SQL statement and each row object an answer
 * holds. Joining, measuring and writing such texts is many times slower
 * than one-byte ones, and the whole answer pays for one two-byte key.
 */
import { Buffer } from "node:buffer";

/** A character a one-byte (Latin-1) string cannot hold. */
const WIDE = /[^\u0000-\u00ff]/;

/**
 * True when `text` holds a character above U+00FF, which makes V8 keep it,
 * and every part cut from it, two-byte. Throws nothing.
 */
export function holdsWide(text: string): boolean {
  return WIDE.test(text);
}

/**
 * `part` as a one-byte string when all its characters are Latin-1 (the
 * same characters, a new string), else `part` itself. Cheap enough for
 * every token, but only worth calling on parts of a text for which
 * {@link holdsWide} is true: any other is one-byte already. Throws nothing.
 */
export function oneByte(part: string): string {
  return WIDE.test(part) ? part : Buffer.from(part, "latin1").toString("latin1");
}
