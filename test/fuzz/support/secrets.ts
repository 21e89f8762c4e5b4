/**
 * Gathers what no answer may reveal (see `oracle.ts`): the database's
 * constraint and index names, the hidden columns' names, and the values
 * stored in hidden columns.
 */
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import type { Executor } from "../../../runtime/exec/executor.js";
import type { Secrets } from "./oracle.js";

/** Names a request may legitimately spell and an answer may quote: tables, columns, relations, paths. */
function publicNames(service: ServiceDescriptor): Set<string> {
  const names = new Set<string>();
  for (const t of service.tables) {
    names.add(t.name.toLowerCase());
    if (t.resource) names.add(t.resource.path.slice(1).toLowerCase());
    for (const c of t.columns) if (!c.hidden) names.add(c.name.toLowerCase());
    for (const r of t.relations) names.add(r.name.toLowerCase());
  }
  return names;
}

/** Shortest stored hidden value worth searching for: shorter ones could occur by chance. */
const MIN_SECRET_LENGTH = 8;

/**
 * Reads the secrets of the database behind `db` (schema `public`).
 * Constraint and index names equal to a public name (a column called like
 * an index) are left out, as an answer may spell them for the public
 * reason.
 */
export async function gatherSecrets(db: Executor, service: ServiceDescriptor): Promise<Secrets> {
  const named = await db.query({
    text:
      "SELECT c.conname::text AS n FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace WHERE s.nspname = 'public' " +
      "UNION SELECT c.relname::text FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace " +
      "WHERE s.nspname = 'public' AND c.relkind IN ('i', 'I')",
    values: [],
  });
  const open = publicNames(service);
  const constraintNames = named.rows.map((r) => r.n ?? "").filter((n) => n !== "" && !open.has(n.toLowerCase()));
  const hiddenNames: string[] = [];
  const hiddenValues = new Set<string>();
  for (const t of service.tables) {
    for (const c of t.columns.filter((col) => col.hidden)) {
      hiddenNames.push(c.name.toLowerCase());
      const col = `"${c.name.replace(/"/g, '""')}"`;
      const forms =
        c.kind === "bytea"
          ? `replace(encode(${col}, 'base64'), E'\\n', '') AS a, encode(${col}, 'hex') AS b`
          : `${col}::text AS a, NULL::text AS b`;
      const r = await db.query({
        text: `SELECT DISTINCT ${forms} FROM "${t.name.replace(/"/g, '""')}" WHERE ${col} IS NOT NULL LIMIT 100`,
        values: [],
      });
      for (const row of r.rows) {
        for (const v of [row.a, row.b]) if (v && v.length >= MIN_SECRET_LENGTH) hiddenValues.add(v.slice(0, 64));
      }
    }
  }
  return { constraintNames, hiddenNames: [...new Set(hiddenNames)], hiddenValues: [...hiddenValues] };
}
