/**
 * The idempotency store's table, stated once for the runtime that uses it
 * (runtime/http/idempotency.ts) and the commands that create it or must
 * leave it alone (`resc migrate deploy`, `resc pull`, the drift gate);
 * docs/decisions/1335-idempotency-keys.md. Imports only the list of resc's
 * own objects, so a command reading these constants loads no HTTP code.
 */

import { IDEMPOTENCY_TABLE } from "./own-objects.js";

// The table's name is stated with resc's other own objects (runtime/own-objects.ts); re-exported where it always was.
export { IDEMPOTENCY_TABLE };

/** How long a stored response answers retries unless the application says otherwise: 24 hours, in seconds. */
export const DEFAULT_IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

/**
 * The table's DDL, safe to run again: one row per (credential scope, key)
 * holding the request's fingerprint and the stored response.
 */
export const IDEMPOTENCY_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${IDEMPOTENCY_TABLE} (` +
  "scope text NOT NULL, key text NOT NULL, fingerprint text NOT NULL, status integer NOT NULL, " +
  "headers jsonb NOT NULL, body text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), " +
  "expires_at timestamptz NOT NULL, PRIMARY KEY (scope, key))";
