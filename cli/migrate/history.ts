/**
 * Applying migrations to a real database (`resc migrate deploy`) and
 * reporting where it stands (`resc migrate status`). The history lives in
 * the table `resc_migrations` (name, checksum, applied_at); each migration
 * runs in its own transaction together with its history row; a session
 * advisory lock makes two nodes starting at once apply each migration once;
 * an applied file whose checksum changed stops everything
 * (docs/decisions/1240-migrations.md).
 */
import pg from "pg";
import type { MigrationFile } from "./files.js";
import { IDEMPOTENCY_TABLE_DDL } from "../../runtime/idempotency-store.js";
import { HISTORY_TABLE, isOwnTable, OWN_TABLE_NAMES } from "../../runtime/own-objects.js";

// The history table is one of resc's own objects, stated in runtime/own-objects.ts; re-exported where it always was.
export { HISTORY_TABLE };

/** The history table's DDL, safe to run again: one row per applied migration. */
export const HISTORY_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${HISTORY_TABLE} ` +
  "(name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())";

/**
 * resc's own tables (`OWN_TABLE_NAMES` of runtime/own-objects.ts, docs/decisions/1357-resc-own-objects.md):
 * never part of a schema. Kept for the callers that read it here.
 */
export const RESC_TABLES: readonly string[] = OWN_TABLE_NAMES;

/** Whether a table of the catalog is one of resc's own, in whichever namespace (`isOwnTable`, runtime/own-objects.ts). */
export function isRescTable(t: { name: string; schema: string }): boolean {
  return isOwnTable(t.name);
}

/** Key of the advisory lock every `deploy` takes (an arbitrary constant: "resc" in ASCII). */
const LOCK_KEY = 0x72657363;

/** Where each migration stands against a database. */
export interface MigrationStatus {
  applied: { name: string; appliedAt: string }[];
  pending: string[];
  /** Applied, but the file's checksum differs from the one recorded. */
  edited: string[];
  /** Recorded as applied, but no longer among the files. */
  missing: string[];
}

/** The history table, and the idempotency store every node of the service shares (docs/decisions/1335-idempotency-keys.md). */
async function ensureHistory(client: pg.Client): Promise<void> {
  await client.query(HISTORY_TABLE_DDL);
  await client.query(IDEMPOTENCY_TABLE_DDL);
}

async function recorded(client: pg.Client): Promise<{ name: string; checksum: string; applied_at: Date }[]> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass($1)::text AS t", [HISTORY_TABLE]);
  if (exists.rows[0]?.t === null) return [];
  return (await client.query(`SELECT name, checksum, applied_at FROM ${HISTORY_TABLE} ORDER BY name`)).rows;
}

function compare(
  files: readonly MigrationFile[],
  rows: { name: string; checksum: string; applied_at: Date }[],
): MigrationStatus {
  const byName = new Map(files.map((f) => [f.name, f]));
  const done = new Set(rows.map((r) => r.name));
  return {
    applied: rows.map((r) => ({ name: r.name, appliedAt: r.applied_at.toISOString() })),
    pending: files.filter((f) => !done.has(f.name)).map((f) => f.name),
    edited: rows.filter((r) => byName.has(r.name) && byName.get(r.name)!.checksum !== r.checksum).map((r) => r.name),
    missing: rows.filter((r) => !byName.has(r.name)).map((r) => r.name),
  };
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {}); // a lost connection fails the running query; never the process
  await client.connect();
  return client;
}

/** Where `files` stand against the database at `url`. */
export async function migrationStatus(url: string, files: readonly MigrationFile[]): Promise<MigrationStatus> {
  const client = await connect(url);
  try {
    return compare(files, await recorded(client));
  } finally {
    await client.end();
  }
}

/**
 * The number of tables a user made, in any namespace (a schema may place its tables with `@@schema`), other
 * than resc's own (runtime/own-objects.ts: the history, the outbox, the tables a running service made for its
 * webhooks and idempotency keys): what a deploy would build over.
 */
async function tablesOutsideHistory(client: pg.Client): Promise<number> {
  const r = await client.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE s.nspname !~ '^pg_' AND s.nspname <> 'information_schema' AND c.relkind IN ('r', 'p')
       AND NOT c.relispartition AND c.relname <> ALL($1::text[])
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')`,
    [OWN_TABLE_NAMES],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** Thrown by {@link deployMigrations} on a populated database that has no history: it needs a baseline first. */
export class NeedsBaselineError extends Error {
  constructor(tables: number) {
    super(
      `the database already holds ${tables} table${tables === 1 ? "" : "s"} and no migration history: the first migration ` +
        "would build them again. Baseline it first: resc migrate baseline SCHEMA --database-url URL records the " +
        "migration that describes it as applied (docs/lifecycle.md, Adopt)",
    );
    this.name = "NeedsBaselineError";
  }
}

/**
 * Records `file` as applied to the database at `url` without running it: the database already is what it builds
 * (a baseline of an adopted database; the caller has checked there is no drift).
 * @throws Error when the database already has a migration history
 */
export async function recordBaseline(url: string, file: MigrationFile): Promise<void> {
  const client = await connect(url);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      const done = await recorded(client);
      if (done.length > 0) {
        throw new Error(
          `the database already has a migration history (${done.map((r) => r.name).join(", ")}); it needs no baseline`,
        );
      }
      await ensureHistory(client);
      await client.query(`INSERT INTO ${HISTORY_TABLE} (name, checksum) VALUES ($1, $2)`, [file.name, file.checksum]);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}

/**
 * Applies the pending migrations in order.
 * @returns the names applied (none when up to date)
 * @throws NeedsBaselineError when the database holds tables but no history; Error when an applied migration was edited or is missing, or naming the migration whose SQL failed (it is rolled back; earlier ones stay)
 */
export async function deployMigrations(
  url: string,
  files: readonly MigrationFile[],
  log: (line: string) => void = () => {},
): Promise<string[]> {
  const client = await connect(url);
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      const history = await recorded(client);
      // Nothing recorded but tables present: an adopted database, which the first migration would collide with.
      if (history.length === 0 && files.length > 0) {
        const tables = await tablesOutsideHistory(client);
        if (tables > 0) throw new NeedsBaselineError(tables);
      }
      await ensureHistory(client);
      const status = compare(files, history);
      if (status.edited.length > 0) {
        throw new Error(
          `applied migrations were edited since: ${status.edited.join(", ")}; restore them and write a new migration instead`,
        );
      }
      if (status.missing.length > 0) {
        throw new Error(`applied migrations are missing from the directory: ${status.missing.join(", ")}`);
      }
      const applied: string[] = [];
      for (const name of status.pending) {
        const file = files.find((f) => f.name === name)!;
        try {
          await client.query("BEGIN");
          await client.query(file.sql);
          await client.query(`INSERT INTO ${HISTORY_TABLE} (name, checksum) VALUES ($1, $2)`, [
            file.name,
            file.checksum,
          ]);
          await client.query("COMMIT");
        } catch (e) {
          await client.query("ROLLBACK").catch(() => {});
          throw new Error(`migration ${name} failed and was rolled back: ${(e as Error).message}`);
        }
        applied.push(name);
        log(`applied ${name}`);
      }
      return applied;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end();
  }
}
