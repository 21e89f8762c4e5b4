/**
 * resc's own database objects, stated once (docs/decisions/1357-resc-own-objects.md):
 * the tables the runtime and the commands create beside a schema's (the
 * change feed's outbox, the webhook queue and positions, the idempotency
 * store, the shared secrets, the migration history), the relations PostgreSQL makes with them
 * (keys' indexes, identity sequences) or resc adds on them, the change
 * feed's capture function and the trigger of that name on each captured
 * table. None is ever part of a schema: `resc pull` neither serves nor
 * names them, the drift gate, `resc migrate` and `resc dev`'s schema
 * evolution never propose to change or drop them, and a deploy does not
 * count them as tables a user made.
 *
 * They are created unqualified, so they live in the first namespace of the
 * connection's search path (`public` unless it says otherwise): they are
 * recognised by name in any namespace, and a schema may not declare a
 * table of one of these names (`own-table-name`).
 *
 * Imports nothing, so a command reading this list loads no HTTP code.
 */

/** The change feed's outbox (docs/decisions/1337-change-feed.md). */
export const EVENTS_TABLE = "resc_events";

/** The webhook delivery queue, beside the outbox (docs/decisions/1338-webhooks.md). */
export const DELIVERIES_TABLE = "resc_deliveries";

/** Each webhook subscription's position: where its feed resumes after a restart (docs/decisions/1338-webhooks.md). */
export const WEBHOOK_CURSORS_TABLE = "resc_webhook_cursors";

/** The idempotency store (docs/decisions/1335-idempotency-keys.md). */
export const IDEMPOTENCY_TABLE = "resc_idempotency";

/** Secrets every node of a service shares, such as the key of the change feed's positions (decision 1365). */
export const SECRETS_TABLE = "resc_secrets";

/** The migration history `resc migrate deploy` keeps (docs/decisions/1240-migrations.md). */
export const HISTORY_TABLE = "resc_migrations";

/** The change feed's trigger function (docs/decisions/1337-change-feed.md). */
export const CAPTURE_FUNCTION = "resc_capture";

/** The trigger each captured table carries: it has its function's name. */
export const CAPTURE_TRIGGER = CAPTURE_FUNCTION;

/** The outbox's index by position (`xid`, `id`), which every follower of the feed reads by. */
export const EVENTS_POSITION_INDEX = `${EVENTS_TABLE}_position`;

/** The delivery queue's index of undelivered rows (pending and failed) by when they are next due (decision 1359). */
export const DELIVERIES_WAITING_INDEX = `${DELIVERIES_TABLE}_waiting`;

/**
 * Relations earlier versions of resc created and a later start drops (`resc_deliveries_due`, replaced by
 * {@link DELIVERIES_WAITING_INDEX}): still resc's own on a database that has not been started since.
 */
export const FORMER_OWN_RELATIONS: readonly string[] = [`${DELIVERIES_TABLE}_due`];

/** The index of pending deliveries earlier versions made; webhooks drop it at start (decision 1359). */
export const FORMER_DELIVERIES_DUE_INDEX = FORMER_OWN_RELATIONS[0]!;

/** One table of resc's own. */
export interface OwnTable {
  /** The table's name (unqualified: see the module's comment). */
  name: string;
  /** What it holds, as a phrase for messages ("the change feed's outbox"). */
  holds: string;
  /**
   * Every other relation that comes with it, by name: the indexes of its keys and the ones resc creates on it,
   * and its identity columns' sequences, as PostgreSQL names them (`<table>_pkey`, `<table>_<column>_seq`).
   */
  relations: readonly string[];
}

/**
 * Every table of resc's own, with what comes with it. test/own-objects.test.ts runs each DDL text of the runtime
 * and the commands on an empty database and checks that what it creates is exactly this list.
 */
export const OWN_TABLES: readonly OwnTable[] = [
  {
    name: EVENTS_TABLE,
    holds: "the change feed's outbox",
    relations: [`${EVENTS_TABLE}_pkey`, `${EVENTS_TABLE}_id_seq`, EVENTS_POSITION_INDEX],
  },
  {
    name: DELIVERIES_TABLE,
    holds: "the webhook delivery queue",
    relations: [
      `${DELIVERIES_TABLE}_pkey`,
      `${DELIVERIES_TABLE}_id_seq`,
      `${DELIVERIES_TABLE}_subscription_event_xid_event_id_key`,
      DELIVERIES_WAITING_INDEX,
    ],
  },
  {
    name: WEBHOOK_CURSORS_TABLE,
    holds: "the webhook subscriptions' positions",
    relations: [`${WEBHOOK_CURSORS_TABLE}_pkey`],
  },
  {
    name: IDEMPOTENCY_TABLE,
    holds: "the idempotency store",
    relations: [`${IDEMPOTENCY_TABLE}_pkey`],
  },
  {
    name: SECRETS_TABLE,
    holds: "the secrets every node shares",
    relations: [`${SECRETS_TABLE}_pkey`],
  },
  {
    name: HISTORY_TABLE,
    holds: "the migration history",
    relations: [`${HISTORY_TABLE}_pkey`],
  },
];

/** The names of {@link OWN_TABLES}, e.g. to bind as a `text[]` parameter (`relname <> ALL($1::text[])`). */
export const OWN_TABLE_NAMES: readonly string[] = OWN_TABLES.map((t) => t.name);

/** Every relation of resc's own (`pg_class` entries: tables, indexes, sequences), by name. */
export const OWN_RELATION_NAMES: readonly string[] = OWN_TABLES.flatMap((t) => [t.name, ...t.relations]);

/** Every function of resc's own, by name. */
export const OWN_FUNCTIONS: readonly string[] = [CAPTURE_FUNCTION];

/** Every trigger name of resc's own (one per captured table, all of one name). */
export const OWN_TRIGGERS: readonly string[] = [CAPTURE_TRIGGER];

const tables = new Set(OWN_TABLE_NAMES);
const relations = new Set([...OWN_RELATION_NAMES, ...FORMER_OWN_RELATIONS]);
const functions = new Set(OWN_FUNCTIONS);
const triggers = new Set(OWN_TRIGGERS);

/** Whether a table named `name` (in whichever namespace) is one of resc's own ({@link OWN_TABLES}). */
export function isOwnTable(name: string): boolean {
  return tables.has(name);
}

/** Whether a relation named `name` (a table, an index or a sequence, in whichever namespace) is one of resc's own. */
export function isOwnRelation(name: string): boolean {
  return relations.has(name);
}

/** Whether a function named `name` is one of resc's own ({@link OWN_FUNCTIONS}). */
export function isOwnFunction(name: string): boolean {
  return functions.has(name);
}

/** Whether a trigger named `name` (on whichever table) is one of resc's own ({@link OWN_TRIGGERS}). */
export function isOwnTrigger(name: string): boolean {
  return triggers.has(name);
}
