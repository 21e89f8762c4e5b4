/**
 * What a schema's DDL may call that the language does not describe: the
 * database's extensions and its own functions (a default of
 * `uuid_generate_v1()`, a check calling `app.valid_email(text)`). The
 * scratch database the drift gate and `migrate` compare in is given them
 * before the schema's DDL runs, and a baseline migration starts with them,
 * so an adopted database whose defaults call its own functions can be
 * compared, baselined and rebuilt (docs/decisions/1258-extensions-and-functions.md).
 */
import { quoteIdent } from "../../compiler/ident.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { OWN_FUNCTIONS } from "../../runtime/own-objects.js";
import { encodeArray } from "../../runtime/sql/bind.js";

/** Namespaces a user made: not PostgreSQL's own, not `information_schema`, not an extension's. */
const USER_NAMESPACE = `n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_namespace'::regclass AND d.objid = n.oid AND d.deptype = 'e')`;

/**
 * The statements that recreate `db`'s extensions (`CREATE EXTENSION IF NOT
 * EXISTS`, but `plpgsql`) and then its own functions and procedures
 * (`pg_get_functiondef`, each namespace created first), in that order:
 * extensions first, since functions may use their types; functions by
 * namespace and name. Aggregates, functions of extensions and resc's own
 * (the change feed's capture, which the schema's DDL states itself:
 * runtime/own-objects.ts) are left out.
 * @throws the driver's error when the database cannot be read
 */
export async function readPrelude(db: Executor): Promise<string[]> {
  const extensions = await db.query({
    text: `SELECT format('CREATE EXTENSION IF NOT EXISTS %I;', extname) AS s FROM pg_extension
           WHERE extname <> 'plpgsql' ORDER BY extname`,
    values: [],
  });
  const functions = await db.query({
    text: `SELECT n.nspname AS ns, pg_get_functiondef(p.oid) || ';' AS s
           FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE ${USER_NAMESPACE} AND p.prokind IN ('f', 'p') AND p.proname <> ALL($1::text[])
             AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
           ORDER BY n.nspname, p.proname, p.oid`,
    values: [encodeArray(OWN_FUNCTIONS)],
  });
  const out = extensions.rows.map((r) => r.s!);
  const namespaces = new Set<string>();
  for (const r of functions.rows) {
    if (r.ns !== "public" && !namespaces.has(r.ns!)) {
      namespaces.add(r.ns!);
      out.push(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(r.ns!)};`);
    }
    out.push(r.s!);
  }
  return out;
}

/**
 * Runs each statement of `prelude` on `db` on its own, keeping on past one
 * that fails (an extension the scratch database does not ship, a function
 * in a language it lacks): the schema's DDL then fails naming what it
 * missed, if it needed it.
 * @returns the errors, one line per statement that failed
 */
export async function applyPrelude(db: Executor, prelude: readonly string[]): Promise<string[]> {
  const failed: string[] = [];
  for (const s of prelude) {
    try {
      await db.script(s);
    } catch (e) {
      failed.push(`${s.split("\n")[0]!.slice(0, 100)}: ${(e as Error).message}`);
    }
  }
  return failed;
}
