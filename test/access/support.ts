/**
 * What the access suites share: the database kinds they run on (PostgreSQL
 * and PGlite as test/idempotency/support.ts finds them, and PostgreSQL
 * through a PgBouncer 1.21+ in transaction mode when one is installed), and
 * a fresh database of each kind.
 */
import type { TestDatabase } from "../support/db.js";
import { databaseKinds, freshDatabase } from "../idempotency/support.js";
import { PGBOUNCER_TRACKING, startPgBouncer } from "../support/pgbouncer.js";
import { createPgExecutor } from "../../runtime/exec/pg.js";

/** A database the access suites run on. */
export type AccessKind = "pg" | "pglite" | "pgbouncer";

/** PostgreSQL, PGlite, and PostgreSQL through PgBouncer in transaction mode when a PgBouncer 1.21+ is installed. */
export async function accessKinds(): Promise<AccessKind[]> {
  const kinds: AccessKind[] = await databaseKinds();
  if (kinds.includes("pg") && PGBOUNCER_TRACKING) kinds.push("pgbouncer");
  return kinds;
}

/**
 * A fresh database of `kind` labelled `label`; `pgbouncer` is a database of
 * the server reached through a PgBouncer of its own (its `url` is the
 * server's, for setup and oracles that must not go through it).
 */
export async function accessDatabase(kind: AccessKind, label: string): Promise<TestDatabase> {
  if (kind !== "pgbouncer") return freshDatabase(kind, label);
  const direct = await freshDatabase("pg", `${label}-bouncer`);
  const bouncer = await startPgBouncer(direct.url!, 3, { binary: PGBOUNCER_TRACKING! });
  const executor = createPgExecutor({ connectionString: bouncer.through(direct.url!), pgbouncer: true });
  return {
    ...direct,
    executor,
    drop: async () => {
      await executor.close();
      await bouncer.stop();
      await direct.drop();
    },
  };
}
