/**
 * A small multi-tenant schema for the hooks tests, with its own rows: orgs,
 * people (scoped, soft-deleting, with a hidden column) and notes (scoped,
 * referring to people), so every confinement rule has a row to hide.
 */
import type { Context } from "hono";
import type { Hooks } from "../../runtime/hooks.js";
import { and, cmp } from "../../runtime/predicate.js";

/** The schema text. */
export const TENANT_SCHEMA = `
table orgs {
  id   bigint @primary_key
  name text   @sortable
  @@scoped
  resource "/orgs" { ops = [reads] }
}

table people {
  id      bigint       @primary_key @default(identity)
  org_id  bigint       @ref(org, orgs, expandable) @stamped @filterable @inverse(people, expandable, order: [name])
  name    text         @sortable @filterable @searchable
  email   text         @unique @filterable
  secret  text         @hidden @default("s")
  gone_at timestamptz? @soft_delete
  @@index([org_id])
  @@scoped
  resource "/people" { ops = [crud, list] }
}

table notes {
  id        bigint @primary_key @default(identity)
  org_id    bigint @stamped @filterable
  author_id bigint @ref(author, people, expandable) @filterable @inverse(notes, expandable)
  body      text
  @@index([org_id])
  @@index([author_id])
  @@scoped
  resource "/notes" { ops = [crud, list] }
}
`;

/**
 * Rows: org 1 has Ada (live), Bob (removed) and Cy (live); org 2 has Dee.
 * Note 1 (org 1) is by Ada, note 2 (org 1) by Bob, note 3 (org 1) by Dee of
 * the other org (inconsistent on purpose: expansions must not leak Dee),
 * note 4 (org 2) by Dee.
 */
export const TENANT_SEED = `
INSERT INTO "orgs" ("id", "name") VALUES (1, 'One'), (2, 'Two');
INSERT INTO "people" ("id", "org_id", "name", "email", "gone_at") OVERRIDING SYSTEM VALUE VALUES
  (1, 1, 'Ada', 'ada@one.test', NULL),
  (2, 1, 'Bob', 'bob@one.test', '2026-01-01T00:00:00Z'),
  (3, 1, 'Cy', 'cy@one.test', NULL),
  (4, 2, 'Dee', 'dee@two.test', NULL);
SELECT setval(pg_get_serial_sequence('"people"', 'id'), 4);
INSERT INTO "notes" ("id", "org_id", "author_id", "body") OVERRIDING SYSTEM VALUE VALUES
  (1, 1, 1, 'by Ada'), (2, 1, 2, 'by Bob'), (3, 1, 4, 'by Dee, filed in One'), (4, 2, 4, 'by Dee');
SELECT setval(pg_get_serial_sequence('"notes"', 'id'), 4);
`;

/** The tenant of a request: the `x-org` header, default 1. */
export function orgOf(c: Context): { org: number } {
  return { org: Number(c.req.header("x-org") ?? "1") };
}

/** The org a hook acts for, from its data. */
export function orgIn(data: unknown): number {
  return Number((data as { org?: unknown } | undefined)?.org ?? 1);
}

/** Confining hooks: each table to the caller's org, people also to live rows; BeforeCreate stamps org_id. */
export function tenantHooks(): Hooks {
  return {
    beforeQuery: {
      orgs: (ctx) => cmp("id", "eq", orgIn(ctx.data)),
      people: (ctx) => and(cmp("org_id", "eq", orgIn(ctx.data)), cmp("gone_at", "isnull")),
      notes: (ctx) => cmp("org_id", "eq", orgIn(ctx.data)),
    },
    beforeCreate: {
      people: (ctx, v) => ({ ...v, org_id: orgIn(ctx.data) }),
      notes: (ctx, v) => ({ ...v, org_id: orgIn(ctx.data) }),
    },
  };
}
