/**
 * The sequences a schema's defaults name. `@default(sql("nextval('s'::regclass)"))`
 * takes numbers from a sequence the language has no declaration for, so the
 * DDL creates it before the first table (a plain `CREATE SEQUENCE`: bigint,
 * starting at 1, owned by no column), as `pg_dump` output like Pagila's
 * does; without it the script fails with "relation … does not exist"
 * (docs/decisions/1250-sequences.md). A `serial` column's sequence is the
 * database's own business and is not listed.
 */
import { quoteIdent } from "../../ident.js";
import { storedColumns, type Schema } from "../../../language/ir.js";

/** One part of a regclass name: a plain identifier or a double-quoted one (quotes doubled inside). */
const PART = /[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+"/g;
/** `nextval('name'` or `nextval('schema.name'`, inside a SQL expression; group 1 is the regclass literal's text. */
const NEXTVAL =
  /\bnextval\s*\(\s*'((?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+")(?:\.(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")+"))?)'/gi;

/**
 * `public."My seq"` → `["public", "My seq"]`: the parts of a regclass
 * literal as PostgreSQL reads them (plain parts folded to lower case,
 * quoted ones as written). Shared by the DDL backend and the catalog
 * reader (catalog/read.ts), which must agree on what a default names.
 */
export function regclassParts(literal: string): string[] {
  const parts: string[] = [];
  for (const m of literal.matchAll(PART)) {
    const p = m[0];
    parts.push(p.startsWith('"') ? p.slice(1, -1).replace(/""/g, '"') : p.toLowerCase());
  }
  return parts;
}

/**
 * Every sequence a default of `schema` names, as a quoted (possibly
 * schema-qualified) DDL name, once each (an unqualified name and the same
 * name qualified with `public.` are one), in the order first named. A
 * name that is not a plain regclass literal (built at run time, say) is
 * not listed: the expression is the user's to keep valid.
 */
export function namedSequences(schema: Schema): string[] {
  // Keyed by schema and name: `s` and `public.s` are one sequence where the schema lives (namespace public).
  const out = new Map<string, string>();
  for (const table of schema.tables) {
    for (const column of storedColumns(table)) {
      if (column.default?.kind !== "sql") continue;
      for (const m of column.default.sql.matchAll(NEXTVAL)) {
        const parts = regclassParts(m[1]!);
        const key = JSON.stringify(parts.length === 1 ? ["public", ...parts] : parts);
        if (!out.has(key)) out.set(key, parts.map(quoteIdent).join("."));
      }
    }
  }
  return [...out.values()];
}
