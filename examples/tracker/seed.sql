-- Seed of the reference application (spec.resource): two tenants with a few
-- rows in every table. Every user's password is "demo-password" (scrypt,
-- N=16384 r=8 p=1, 32-byte key; format scrypt$N$r$p$salt$hash, salt and hash
-- in hex). Every tenant row carries its org_id (docs/decisions/0702).
-- Task 5 is soft-deleted: it stays in the table but is never served.

INSERT INTO "orgs" ("id", "name", "country") VALUES
  ('00000000-0000-4000-8000-000000000001', 'Acme Rockets', 'US'),
  ('00000000-0000-4000-8000-000000000002', 'Globex Tea', 'GB');

INSERT INTO "users" ("id", "org_id", "email", "name", "password_hash", "created_at") VALUES
  ('00000000-0000-4000-8000-000000000101', '00000000-0000-4000-8000-000000000001', 'ada@acme.test', 'Ada Lovelace',
   'scrypt$16384$8$1$0123456789abcdef0123456789abcdef$e1a423243cd930a10002aa193f41cbce554dad0ec978965bbc889dea94745a3a', '2026-01-05T09:00:00Z'),
  ('00000000-0000-4000-8000-000000000102', '00000000-0000-4000-8000-000000000001', 'alan@acme.test', 'Alan Turing',
   'scrypt$16384$8$1$fedcba9876543210fedcba9876543210$bec66719b33a02a629fdc3e1606f1dc0dffca12cced2816dd6757ea0b4b97fc6', '2026-01-06T09:30:00Z'),
  ('00000000-0000-4000-8000-000000000201', '00000000-0000-4000-8000-000000000002', 'grace@globex.test', 'Grace Hopper',
   'scrypt$16384$8$1$00112233445566778899aabbccddeeff$62076aaec533f3a517ba4c6c97b01f2e6cacd6f4d5c72650679b25294f8978a5', '2026-02-01T08:00:00Z');

INSERT INTO "lists" ("id", "org_id", "title", "position", "color", "archived_at") OVERRIDING SYSTEM VALUE VALUES
  (1, '00000000-0000-4000-8000-000000000001', 'Backlog', 1, '#888888', NULL),
  (2, '00000000-0000-4000-8000-000000000001', 'This week', 2, '#3366ff', NULL),
  (3, '00000000-0000-4000-8000-000000000001', 'Launch 2025', 3, NULL, '2025-12-31T23:00:00Z'),
  (4, '00000000-0000-4000-8000-000000000002', 'Tastings', 1, '#aa5500', NULL);
SELECT setval(pg_get_serial_sequence('"lists"', 'id'), 4);

INSERT INTO "tasks" ("id", "org_id", "list_id", "assignee_id", "title", "status", "priority", "position", "labels", "attrs", "estimate", "due_on", "created_at", "deleted_at") OVERRIDING SYSTEM VALUE VALUES
  (1, '00000000-0000-4000-8000-000000000001', 1, '00000000-0000-4000-8000-000000000101', 'Design the fuel pump', 'doing', 3, 1, '{engineering,design}', '{"note": "needs review", "source": "jira"}', 12.50, '2026-12-01', '2026-03-01T10:00:00.123456Z', NULL),
  (2, '00000000-0000-4000-8000-000000000001', 1, NULL, 'Order titanium', 'todo', 2, 2, '{purchasing}', NULL, 1.00, NULL, '2026-03-02T11:00:00Z', NULL),
  (3, '00000000-0000-4000-8000-000000000001', 2, '00000000-0000-4000-8000-000000000102', 'Write the 50% discount copy', 'blocked', 1, 1, '{marketing}', '{"note": "legal"}', NULL, '2026-11-30', '2026-03-03T12:00:00Z', NULL),
  (4, '00000000-0000-4000-8000-000000000001', 2, '00000000-0000-4000-8000-000000000101', 'Test launch pad', 'done', 4, 2, '{engineering,safety}', '{"source": "manual"}', 40.00, '2026-10-01', '2026-03-04T13:00:00Z', NULL),
  (5, '00000000-0000-4000-8000-000000000001', 3, NULL, 'Old launch checklist', 'done', 0, 1, '{}', NULL, NULL, NULL, '2025-06-01T09:00:00Z', '2025-12-31T23:00:00Z'),
  (6, '00000000-0000-4000-8000-000000000002', 4, '00000000-0000-4000-8000-000000000201', 'Taste the oolong', 'todo', 2, 1, '{tasting}', '{"note": "second flush"}', 0.50, '2026-12-15', '2026-04-01T15:00:00Z', NULL);
SELECT setval(pg_get_serial_sequence('"tasks"', 'id'), 6);

INSERT INTO "task_watchers" ("org_id", "task_id", "user_id", "added_at") VALUES
  ('00000000-0000-4000-8000-000000000001', 1, '00000000-0000-4000-8000-000000000102', '2026-03-01T12:00:00Z'),
  ('00000000-0000-4000-8000-000000000001', 3, '00000000-0000-4000-8000-000000000101', '2026-03-03T13:00:00Z'),
  ('00000000-0000-4000-8000-000000000001', 4, '00000000-0000-4000-8000-000000000102', '2026-03-04T14:00:00Z'),
  ('00000000-0000-4000-8000-000000000002', 6, '00000000-0000-4000-8000-000000000201', '2026-04-01T16:00:00Z');

INSERT INTO "comments" ("id", "org_id", "task_id", "author_id", "body", "created_at") VALUES
  ('00000000-0000-4000-8000-000000001001', '00000000-0000-4000-8000-000000000001', 1, '00000000-0000-4000-8000-000000000102', 'Pump drawings attached.', '2026-03-01T15:00:00Z'),
  ('00000000-0000-4000-8000-000000001002', '00000000-0000-4000-8000-000000000001', 1, '00000000-0000-4000-8000-000000000101', 'Reviewed, two remarks.', '2026-03-02T09:00:00Z'),
  ('00000000-0000-4000-8000-000000001003', '00000000-0000-4000-8000-000000000002', 6, '00000000-0000-4000-8000-000000000201', 'Steep for three minutes.', '2026-04-02T10:00:00Z');

INSERT INTO "audit_events" ("org_id", "actor_id", "action", "payload", "at") VALUES
  ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000101', 'task.create', '{"task_id": 1}', '2026-03-01T10:00:00Z');
