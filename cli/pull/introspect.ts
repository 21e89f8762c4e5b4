/**
 * Reads what `resc pull` describes from a live database: the catalog of
 * one namespace (`cli/migrate/catalog.ts`) and the objects it reports as
 * left out (views, triggers, functions).
 */
import pg from "pg";
import type { Executor } from "../../runtime/exec/executor.js";
import { readCatalog, type Catalog } from "../migrate/catalog.js";
import { HISTORY_TABLE } from "../migrate/history.js";
import type { Extras } from "./render.js";

/**
 * Connects to `url`, reads namespace `schema` with it first on the search
 * path (so names come back unqualified), and disconnects.
 * @throws the driver's error when the database cannot be reached or read
 */
export async function introspect(url: string, schema: string): Promise<{ catalog: Catalog; extras: Extras }> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(`SELECT set_config('search_path', $1, false)`, [`"${schema.replace(/"/g, '""')}"`]);
    const db: Executor = {
      query: async (stmt) => {
        const r = await client.query(stmt.text, stmt.values);
        return { rows: r.rows as Record<string, string | null>[], rowCount: r.rowCount ?? 0 };
      },
      transaction: () => Promise.reject(new Error("not used")),
      script: async (sql) => {
        await client.query(sql);
      },
      close: async () => {},
    };
    const catalog = await readCatalog(db, schema);
    catalog.tables = catalog.tables.filter((t) => t.name !== HISTORY_TABLE);
    const views = await client.query<{ n: string }>(
      `SELECT c.relname AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
       WHERE s.nspname = $1 AND c.relkind IN ('v', 'm') ORDER BY 1`,
      [schema],
    );
    const triggers = await client.query<{ n: string }>(
      `SELECT c.relname || '.' || t.tgname AS n FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
       JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND NOT t.tgisinternal ORDER BY 1`,
      [schema],
    );
    const functions = await client.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM pg_proc p JOIN pg_namespace s ON s.oid = p.pronamespace
       WHERE s.nspname = $1 AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`,
      [schema],
    );
    return {
      catalog,
      extras: {
        views: views.rows.map((r) => r.n),
        triggers: triggers.rows.map((r) => r.n),
        functions: Number(functions.rows[0]?.n ?? 0),
      },
    };
  } finally {
    await client.end();
  }
}
