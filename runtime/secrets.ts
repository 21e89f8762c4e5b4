/**
 * Secrets every node of a service shares, kept in the database beside the
 * data (`resc_secrets`, one of resc's own tables: runtime/own-objects.ts):
 * each is made once, at random, by the first node that needs it, and read
 * by every other, so nodes agree without configuration
 * (docs/decisions/1365-opaque-feed-positions.md). Anyone who can read the
 * table can read them; a caller of the HTTP API never can (it is no
 * schema's table, so it is never served).
 */
import { createHash, randomBytes } from "node:crypto";
import type { Executor } from "./exec/executor.js";
import { SECRETS_TABLE } from "./own-objects.js";

/** The table's DDL, safe to run again: one row per secret, its value 32 random bytes. */
export const SECRETS_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${SECRETS_TABLE} (` +
  "name text PRIMARY KEY, value bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now())";

/** The names of the secrets resc keeps, stated once. */
export const SECRET_NAMES = {
  /** The key that seals change-feed positions and webhook ids (decision 1365). */
  feedPositions: "feed-positions",
} as const;

/** One of {@link SECRET_NAMES}. */
export type SecretName = (typeof SECRET_NAMES)[keyof typeof SECRET_NAMES];

/** Thrown when a secret can neither be read nor made: the service's role may not create resc's table. */
export class SecretUnavailable extends Error {
  constructor(name: SecretName, cause: unknown) {
    super(
      `resc cannot read or create its secret "${name}" in ${SECRETS_TABLE}: ` +
        `${cause instanceof Error ? cause.message : String(cause)}. ` +
        `If the service's role may not create tables, create it once as the schema's owner: ${SECRETS_TABLE_DDL}`,
      { cause },
    );
    this.name = "SecretUnavailable";
  }
}

/**
 * An advisory lock key of resc's own, held while the table is created and
 * the secret inserted, so that nodes starting together queue instead of
 * racing in the catalog (as the idempotency store's creation does).
 */
const CREATE_LOCK = createHash("sha256").update(`create ${SECRETS_TABLE}`).digest().readBigInt64BE(0).toString();

/** Each executor's secrets, read once per process. */
const cache = new WeakMap<Executor, Map<SecretName, Promise<Buffer>>>();

async function read(db: Executor, name: SecretName): Promise<Buffer | undefined> {
  const r = await db.query({
    text: `SELECT encode(value, 'hex') AS v FROM ${SECRETS_TABLE} WHERE name = $1`,
    values: [name],
  });
  const v = r.rows[0]?.v;
  return v ? Buffer.from(v, "hex") : undefined;
}

async function readOrMake(db: Executor, name: SecretName): Promise<Buffer> {
  try {
    const found = await read(db, name);
    if (found) return found;
  } catch {
    // The table does not exist yet (or cannot be read): making it below says which.
  }
  try {
    await db.transaction(async (tx) => {
      await tx.query({ text: "SELECT pg_advisory_xact_lock($1::bigint)", values: [CREATE_LOCK] });
      await tx.query({ text: SECRETS_TABLE_DDL, values: [] });
      // ON CONFLICT: a node that made it first wins, and everyone reads its value.
      await tx.query({
        text: `INSERT INTO ${SECRETS_TABLE} (name, value) VALUES ($1, decode($2, 'hex')) ON CONFLICT (name) DO NOTHING`,
        values: [name, randomBytes(32).toString("hex")],
      });
    });
  } catch (e) {
    // Refused (no CREATE privilege): someone may have made it anyway.
    const found = await read(db, name).catch(() => undefined);
    if (found) return found;
    throw new SecretUnavailable(name, e);
  }
  const made = await read(db, name);
  if (!made) throw new SecretUnavailable(name, new Error("the row was not found after it was inserted"));
  return made;
}

/**
 * The secret `name` of the database `db` serves: 32 bytes, made at random
 * the first time any node asks (creating {@link SECRETS_TABLE_DDL}'s table
 * when the role may), the same on every node afterwards. Read once per
 * executor; a failed attempt is not kept, so the next call tries again.
 * @throws {@link SecretUnavailable} when the table cannot be read and cannot be created
 */
export function sharedSecret(db: Executor, name: SecretName): Promise<Buffer> {
  let byName = cache.get(db);
  if (!byName) cache.set(db, (byName = new Map()));
  let secret = byName.get(name);
  if (!secret) {
    secret = readOrMake(db, name);
    secret.catch(() => byName!.delete(name));
    byName.set(name, secret);
  }
  return secret;
}
