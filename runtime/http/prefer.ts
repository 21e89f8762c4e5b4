/**
 * The `Prefer` request header (RFC 7240) as resc reads it: preferences
 * `name` or `name=value`, comma-separated, parameters after `;` ignored,
 * names case-insensitive. A preference resc does not know is ignored, as
 * the RFC asks; one it applied is echoed in `Preference-Applied`.
 */

/** The preferences of a request, by lower-case name; `""` for a preference without a value. */
export function readPrefer(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (header === undefined) return out;
  for (const part of header.split(",")) {
    const token = part.split(";")[0]!.trim();
    if (token === "") continue;
    const eq = token.indexOf("=");
    const name = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    const value =
      eq < 0
        ? ""
        : token
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, "$1");
    if (!out.has(name)) out.set(name, value);
  }
  return out;
}
