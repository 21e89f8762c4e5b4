/**
 * Reads what `resc pull` describes from a live database: the catalog of
 * one namespace (`catalog/read.ts`, the one reader) and the objects it reports as
 * left out (views, triggers, functions, row-level security and its policies).
 */
import pg from "pg";
import type { Executor } from "../runtime/exec/executor.js";
import { readCatalog } from "./read.js";
import type { Catalog } from "./model.js";
import { OWN_FUNCTIONS, OWN_TABLE_NAMES, OWN_TRIGGERS } from "../runtime/own-objects.js";
import { encodeArray } from "../runtime/sql/bind.js";
import type { Extras } from "./render/resource.js";
import type { PulledPolicy } from "./render/policies.js";

/**
 * Namespaces of a database that hold what a user made: not PostgreSQL's own, not `information_schema`, not one
 * holding only resc's own tables (`$1`, runtime/own-objects.ts).
 */
const USER_NAMESPACES = `SELECT n.nspname AS n FROM pg_namespace n
  WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema'
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = n.oid AND d.deptype = 'e')
    AND (EXISTS (SELECT 1 FROM pg_class c WHERE c.relnamespace = n.oid AND c.relkind IN ('r', 'p', 'v', 'm')
                   AND c.relname <> ALL($1::text[]))
      OR EXISTS (SELECT 1 FROM pg_type t WHERE t.typnamespace = n.oid AND t.typtype IN ('e', 'd')))
  ORDER BY n.nspname = 'public' DESC, n.nspname`;

/**
 * Connects to `url`, reads the namespaces `schemas` (`"all"`: every
 * namespace that holds a table, a view, an enum or a domain) with `public`
 * alone on the search path, so names elsewhere come back qualified as the
 * drift gate reads them, and disconnects.
 * @returns the catalog, what pull reports as left out, and the namespaces read
 * @throws the driver's error when the database cannot be reached or read
 */
export async function introspect(
  url: string,
  schemas: readonly string[] | "all",
): Promise<{ catalog: Catalog; extras: Extras; schemas: string[] }> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(`SELECT set_config('search_path', 'public', false)`);
    // One client runs one query at a time: the reader's queries, sent at once, wait their turn here.
    let turn: Promise<unknown> = Promise.resolve();
    const db: Executor = {
      query: (stmt) => {
        const run = turn.then(() => client.query(stmt.text, stmt.values));
        turn = run.catch(() => {});
        return run.then((r) => ({ rows: r.rows as Record<string, string | null>[], rowCount: r.rowCount ?? 0 }));
      },
      transaction: () => Promise.reject(new Error("not used")),
      script: async (sql) => {
        await client.query(sql);
      },
      close: async () => {},
    };
    const read =
      schemas === "all"
        ? (await client.query<{ n: string }>(USER_NAMESPACES, [encodeArray(OWN_TABLE_NAMES)])).rows.map((r) => r.n)
        : [...schemas];
    // resc's own tables, their capture triggers and function are neither served nor reported as left out
    // (docs/decisions/1357-resc-own-objects.md): `readCatalog` leaves the tables out, the reads below the rest.
    const catalog = await readCatalog(db, read);
    const where = "s.nspname = ANY($1::text[])";
    const qualified = (rel: string): string =>
      `CASE WHEN s.nspname = 'public' THEN ${rel} ELSE s.nspname || '.' || ${rel} END`;
    const views = await client.query<{ n: string }>(
      `SELECT ${qualified("c.relname")} AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
       WHERE ${where} AND c.relkind IN ('v', 'm') ORDER BY 1`,
      [read],
    );
    const triggers = await client.query<{ n: string }>(
      `SELECT ${qualified("c.relname")} || '.' || t.tgname AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       JOIN pg_namespace s ON s.oid = c.relnamespace WHERE ${where} AND NOT t.tgisinternal AND t.tgname <> ALL($2::text[])
       ORDER BY 1`,
      [read, OWN_TRIGGERS],
    );
    const functions = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
       WHERE ${where} AND p.proname <> ALL($2::text[])
         AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
      [read, OWN_FUNCTIONS],
    );
    // Row-level security and its policies are reported (docs/decisions/1368-database-row-level-security.md).
    const secured = await client.query<{ s: string; t: string; forced: boolean }>(
      `SELECT s.nspname AS s, c.relname AS t, c.relforcerowsecurity AS forced FROM pg_class c
       JOIN pg_namespace s ON s.oid = c.relnamespace WHERE ${where} AND c.relkind IN ('r', 'p') AND c.relrowsecurity
         AND c.relname <> ALL($2::text[])
       ORDER BY 1, 2`,
      [read, OWN_TABLE_NAMES],
    );
    const policies = await client.query<{
      s: string;
      t: string;
      n: string;
      permissive: string;
      cmd: PulledPolicy["command"];
      roles: string;
      qual: string | null;
      chk: string | null;
    }>(
      `SELECT p.schemaname AS s, p.tablename AS t, p.policyname AS n, p.permissive, p.cmd,
         to_json(p.roles)::text AS roles, p.qual, p.with_check AS chk
       FROM pg_policies p WHERE p.schemaname = ANY($1::text[]) ORDER BY 1, 2, 3`,
      [read],
    );
    return {
      catalog,
      extras: {
        rowSecurity: secured.rows.map((r) => ({ table: { schema: r.s, name: r.t }, forced: r.forced })),
        policies: policies.rows.map((r): PulledPolicy => ({
          table: { schema: r.s, name: r.t },
          name: r.n,
          permissive: r.permissive === "PERMISSIVE",
          command: r.cmd,
          roles: JSON.parse(r.roles) as string[],
          ...(r.qual !== null ? { using: r.qual } : {}),
          ...(r.chk !== null ? { withCheck: r.chk } : {}),
        })),
        views: views.rows.map((r) => r.n),
        triggers: triggers.rows.map((r) => r.n),
        functions: Number(functions.rows[0]?.n ?? 0),
        schemas: read,
      },
      schemas: read,
    };
  } finally {
    await client.end();
  }
}
