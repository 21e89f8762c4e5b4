/**
 * The hand-written server's connection pool: node-postgres with its default
 * pool size (10, the same as resc's pg executor) and two type parsers so the
 * JSON matches resc's documented forms (docs/http.md, JSON forms):
 * `timestamptz` as RFC 3339 in UTC with the microseconds PostgreSQL prints,
 * and `numeric` left as its exact text (node-postgres already does that).
 */
import pg from "pg";

const TIMESTAMPTZ = 1184;

/**
 * `2022-09-10 16:46:03.905795+00` → `2022-09-10T16:46:03.905795Z`. The
 * session runs in UTC (see {@link createPool}), so the offset is always
 * `+00`; PostgreSQL already trims trailing zeros of the fraction.
 */
function rfc3339(text: string): string {
  return text.replace(" ", "T").replace(/\+00$/, "Z");
}

const types = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    if (oid === TIMESTAMPTZ) return rfc3339;
    return pg.types.getTypeParser(oid, format);
  },
} as pg.CustomTypesConfig;

/** A pool on `connectionString` whose sessions use UTC and whose timestamps stay text. */
export function createPool(connectionString: string): pg.Pool {
  return new pg.Pool({ connectionString, options: "-c TimeZone=UTC", types });
}
