/**
 * The change feed's capture, stated once: the outbox table every captured
 * change is written to, the trigger function writing it and the trigger
 * each table with `events = true` carries, for the SQL backend that emits
 * them, the migrations that create and drop them and the runtime that
 * reads the outbox (docs/decisions/1337-change-feed.md). Imports only the
 * list of resc's own objects, so a command reading these constants loads no
 * HTTP code.
 */

import {
  CAPTURE_FUNCTION,
  CAPTURE_TRIGGER,
  DELIVERIES_TABLE,
  EVENTS_POSITION_INDEX,
  EVENTS_TABLE,
} from "../own-objects.js";

// The names are resc's own objects', stated in runtime/own-objects.ts; re-exported where they always were.
export { CAPTURE_FUNCTION, DELIVERIES_TABLE, EVENTS_TABLE };

/** The LISTEN/NOTIFY channel the trigger wakes the nodes on; the payload is the table's name. */
export const EVENTS_CHANNEL = "resc_events";

/** The operations of the outbox's `op` column: the first letter of `TG_OP`, lower case. */
export const OUTBOX_OPS = { i: "create", u: "update", d: "delete" } as const;

/** One letter of {@link OUTBOX_OPS}. */
export type OutboxOp = keyof typeof OUTBOX_OPS;

/** How long captured changes are kept unless the application says otherwise: 24 hours, in seconds. */
export const DEFAULT_EVENT_RETENTION_SECONDS = 24 * 60 * 60;

/**
 * The outbox and its trigger function, each statement safe to run again
 * (`IF NOT EXISTS`, `OR REPLACE`), so a migration adding the first captured
 * table and one adding the tenth run the same text.
 *
 * A row is one change of one row: `xid` the writing transaction
 * (`pg_current_xact_id()`, so readers can tell which transactions have
 * ended), `id` its order inside the outbox, `tbl` the table's name in the
 * schema (the trigger's argument, independent of `@@map` and `@@schema`),
 * `op` one of {@link OUTBOX_OPS}, `old` and `new` the row images as `jsonb`
 * (absent on a create and a delete respectively), `at` the commit's clock
 * for retention. `pg_notify` is sent at commit, so a rolled-back write
 * wakes nobody, and PostgreSQL folds the notices of one transaction with
 * the same payload into one.
 */
export const CAPTURE_DDL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${EVENTS_TABLE} (` +
    "id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, xid xid8 NOT NULL DEFAULT pg_current_xact_id(), " +
    'tbl text NOT NULL, op "char" NOT NULL, old jsonb, new jsonb, at timestamptz NOT NULL DEFAULT now());',
  `CREATE INDEX IF NOT EXISTS ${EVENTS_POSITION_INDEX} ON ${EVENTS_TABLE} (xid, id);`,
  `CREATE OR REPLACE FUNCTION ${CAPTURE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $resc$
BEGIN
  INSERT INTO ${EVENTS_TABLE} (tbl, op, old, new) VALUES (
    TG_ARGV[0], lower(left(TG_OP, 1)),
    CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END,
    CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END);
  PERFORM pg_notify('${EVENTS_CHANNEL}', TG_ARGV[0]);
  RETURN NULL;
END
$resc$;`,
];

/**
 * The trigger capturing every row change of one table.
 * @param tableSql the table as SQL, quoted and qualified (`"public"."film"`)
 * @param literal the table's name in the schema as a SQL string literal (`'film'`), the outbox's `tbl`
 */
export function captureTrigger(tableSql: string, literal: string): string {
  return (
    `CREATE TRIGGER ${CAPTURE_TRIGGER} AFTER INSERT OR UPDATE OR DELETE ON ${tableSql} ` +
    `FOR EACH ROW EXECUTE FUNCTION ${CAPTURE_FUNCTION}(${literal});`
  );
}
