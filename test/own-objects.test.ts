/**
 * resc's own database objects are stated once (runtime/own-objects.ts,
 * docs/decisions/1357-resc-own-objects.md) and never treated as a schema's:
 * the list is complete (every DDL text of the runtime and the commands
 * creates exactly what it names, and no other module creates one), and on
 * a database where the change feed, webhooks, idempotency keys and
 * migrations have all run, the catalog, the drift gate, the live schema
 * check, `resc dev`'s schema evolution, the scratch prelude, `resc migrate
 * deploy` and `baseline` and `resc check --database-url` leave them alone.
 * On PostgreSQL and on the embedded database where the command takes one.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitSql } from "../compiler/backends/sql/index.js";
import { migrateEmbedded } from "../cli/dev/evolve.js";
import { declaredRenames, driftSteps, findSchemaMismatches, readCatalog, readPrelude } from "../catalog/index.js";
import { pendingSteps } from "../cli/migrate/pending.js";
import { deployMigrations, HISTORY_TABLE_DDL } from "../cli/migrate/history.js";
import { CAPTURE_DDL, captureTrigger } from "../runtime/events/outbox.js";
import { WEBHOOK_DDL } from "../runtime/events/webhooks.js";
import { createPgliteExecutor } from "../runtime/exec/pglite.js";
import { pgliteExtensions } from "../runtime/exec/pglite-extensions.js";
import { IDEMPOTENCY_TABLE_DDL } from "../runtime/idempotency-store.js";
import { SECRETS_TABLE_DDL } from "../runtime/secrets.js";
import {
  DELIVERIES_TABLE,
  EVENTS_TABLE,
  HISTORY_TABLE,
  IDEMPOTENCY_TABLE,
  isOwnFunction,
  isOwnRelation,
  isOwnTable,
  isOwnTrigger,
  OWN_FUNCTIONS,
  OWN_RELATION_NAMES,
  OWN_TABLE_NAMES,
  OWN_TRIGGERS,
  SECRETS_TABLE,
  WEBHOOK_CURSORS_TABLE,
} from "../runtime/own-objects.js";
import { createTestDatabase, findServer, type TestDatabase } from "./support/db.js";
import { runNode } from "./support/run.js";
import { compileText } from "./support/service.js";

/**
 * Every module that creates one of resc's own objects, with the DDL texts it runs, as the runtime and the
 * commands run them (the trigger on a table of a user's, `"Visit"`). A new module creating one must be added
 * here, and what it creates to runtime/own-objects.ts: the source scan below fails until it is.
 */
const OWN_DDL: Record<string, readonly string[]> = {
  "runtime/events/outbox.ts": [...CAPTURE_DDL, captureTrigger(`"public"."Visit"`, `'Visit'`)],
  "runtime/events/webhooks.ts": WEBHOOK_DDL,
  "runtime/idempotency-store.ts": [IDEMPOTENCY_TABLE_DDL],
  "runtime/secrets.ts": [SECRETS_TABLE_DDL],
  "cli/migrate/history.ts": [HISTORY_TABLE_DDL],
};
const ALL_OWN_DDL = Object.values(OWN_DDL).flat();

/** `CREATE [OR REPLACE] [UNIQUE] <kind> [IF NOT EXISTS] <name>`, of any kind, so an unknown kind is noticed. */
const CREATE = /\bCREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?([A-Z]+)\s+(?:IF\s+NOT\s+EXISTS\s+)?("?[\w.]+"?)/gi;

/** Which predicate of the list knows an object of each kind. */
const KNOWS: Record<string, (name: string) => boolean> = {
  TABLE: isOwnTable,
  INDEX: isOwnRelation,
  SEQUENCE: isOwnRelation,
  FUNCTION: isOwnFunction,
  TRIGGER: isOwnTrigger,
};

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const KINDS: ("pg" | "pglite")[] = server ? ["pg", "pglite"] : ["pglite"];

/** A fresh database of `kind`: one of the server's, or an in-memory PGlite with the extensions every one has. */
async function freshDatabase(kind: "pg" | "pglite", label: string): Promise<TestDatabase> {
  if (kind === "pg") return createTestDatabase(label);
  const pglite = new PGlite({ extensions: await pgliteExtensions() });
  await pglite.waitReady;
  return { kind: "pglite", pglite, executor: createPgliteExecutor(pglite), drop: () => pglite.close() };
}

async function names(db: TestDatabase, text: string): Promise<Set<string>> {
  return new Set((await db.executor.query({ text, values: [] })).rows.map((r) => r.n!));
}

const USER_NS = `ns.nspname !~ '^pg_' AND ns.nspname <> 'information_schema'`;
const RELATIONS = `SELECT c.relname AS n FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace WHERE ${USER_NS}`;
const FUNCTIONS = `SELECT p.proname AS n FROM pg_proc p JOIN pg_namespace ns ON ns.oid = p.pronamespace WHERE ${USER_NS}`;
const TRIGGERS = `SELECT t.tgname AS n FROM pg_trigger t WHERE NOT t.tgisinternal`;

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await sourceFiles(p)));
    else if (e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") && e.name !== "core-text.ts") out.push(p);
  }
  return out;
}

describe("the list of resc's own objects", () => {
  it("knows every object each of the runtime's and the commands' own DDL texts creates", () => {
    const creating = ALL_OWN_DDL.filter((sql) => /\bCREATE\b/i.test(sql));
    // A text that creates nothing only drops what an earlier version made (runtime/events/webhooks.ts's former index).
    for (const sql of ALL_OWN_DDL.filter((t) => !creating.includes(t))) expect(sql).toMatch(/^DROP INDEX IF EXISTS /);
    expect(creating.length).toBeGreaterThan(0);
    for (const sql of creating) {
      const created = [...sql.matchAll(CREATE)];
      // Every CREATE of the text is read (none of a kind or form the pattern misses).
      expect(created.length, sql).toBe(sql.match(/\bCREATE\b/gi)!.length);
      for (const [, kind, name] of created) {
        const knows = KNOWS[kind!.toUpperCase()];
        expect(knows, `${kind} is a kind of object runtime/own-objects.ts has no list of: ${sql}`).toBeDefined();
        expect(knows!(name!.replace(/"/g, "")), `${kind} ${name} is missing from runtime/own-objects.ts`).toBe(true);
      }
    }
  });

  it("no module but those stated here creates an object named by a constant, and every resc_ name created is listed", async () => {
    const creates =
      /CREATE\s+(?:OR\s+REPLACE\s+)?(?:UNIQUE\s+)?(TABLE|INDEX|FUNCTION|TRIGGER|SEQUENCE|VIEW|TYPE)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\$\{[A-Z][A-Z0-9_]*\}|"?resc_\w+)/g;
    const byConstant = new Set<string>();
    const unknown: string[] = [];
    for (const root of ["runtime", "catalog", "cli", "compiler", "language", "grammar", "templates"])
      for (const f of await sourceFiles(root))
        for (const [, kind, name] of (await readFile(f, "utf8")).matchAll(creates)) {
          if (name!.startsWith("${")) byConstant.add(f);
          else if (!KNOWS[kind!]?.(name!.replace(/"/g, ""))) unknown.push(`${f}: ${kind} ${name}`);
        }
    expect([...byConstant].sort()).toEqual(Object.keys(OWN_DDL).sort());
    expect(unknown).toEqual([]);
  });

  it("tells resc's names from a user's that merely resemble them", () => {
    expect(OWN_TABLE_NAMES).toEqual(
      expect.arrayContaining([EVENTS_TABLE, DELIVERIES_TABLE, WEBHOOK_CURSORS_TABLE, IDEMPOTENCY_TABLE, HISTORY_TABLE]),
    );
    for (const t of OWN_TABLE_NAMES) expect(isOwnRelation(t)).toBe(true);
    // A user's table that merely starts like resc's is the user's.
    for (const name of ["resc_eventsx", "resc_", "events", "Resc_events", "resc_events_archive"])
      expect(isOwnTable(name), name).toBe(false);
    expect(isOwnFunction("resc_capture_v2")).toBe(false);
  });

  describe.each(KINDS)("on %s", (kind) => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await freshDatabase(kind, "own_list");
      // A user's table first: what it brings is not resc's.
      await db.executor.script(`CREATE TABLE "Visit" (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at date);`);
    });
    afterAll(() => db?.drop());

    it("what the DDL texts create is exactly the list: every relation, function and trigger, none left over", async () => {
      const before = {
        relations: await names(db, RELATIONS),
        functions: await names(db, FUNCTIONS),
        triggers: await names(db, TRIGGERS),
      };
      // Each table and function text twice, as a second start runs them: each is safe to run again.
      const triggers = ALL_OWN_DDL.filter((sql) => /CREATE TRIGGER/.test(sql));
      const rest = ALL_OWN_DDL.filter((sql) => !triggers.includes(sql));
      for (const sql of [...rest, ...rest, ...triggers]) await db.executor.script(sql);
      const added = async (text: string, had: Set<string>): Promise<string[]> =>
        [...(await names(db, text))].filter((n) => !had.has(n)).sort();
      expect(await added(RELATIONS, before.relations)).toEqual([...OWN_RELATION_NAMES].sort());
      expect(await added(FUNCTIONS, before.functions)).toEqual([...OWN_FUNCTIONS].sort());
      expect(await added(TRIGGERS, before.triggers)).toEqual([...OWN_TRIGGERS].sort());
    });
  });
});

/** A stranger's schema: a bigint identity key, an enum, a uuid, a numeric, a quoted database name, the feed on. */
const V1 = `enum order_state { open shipped }

table orders {
  id     bigint      @primary_key @default(identity)
  ref    uuid        @default(gen_random_uuid())
  state  order_state @default(open) @filterable
  total  numeric(10,2)
  note   text?
  @@map("Orders")

  resource "/orders" { ops = [crud, list], events = true }
}
`;
/** V1 and a column more: a change `resc dev` should apply, keeping the rows. */
const V2 = V1.replace("  note   text?\n", "  note   text?\n  tag    text?\n");

/**
 * Makes `db` a database where the service ran with the feed, webhooks and idempotency keys, and migrations were
 * deployed: the schema's DDL, then each of resc's own DDL texts as the runtime and the commands run them, each
 * table holding a row.
 */
async function asAfterWebhooks(db: TestDatabase, ddl: string): Promise<void> {
  await db.executor.script(ddl);
  for (const sql of [...WEBHOOK_DDL, IDEMPOTENCY_TABLE_DDL, SECRETS_TABLE_DDL, HISTORY_TABLE_DDL])
    await db.executor.script(sql);
  await db.executor.script(
    `INSERT INTO "Orders" (total) VALUES (12.5);
     INSERT INTO ${DELIVERIES_TABLE} (subscription, event_xid, event_id, type, payload)
       SELECT 'big', xid, id, 'orders.create', '{}' FROM ${EVENTS_TABLE};
     INSERT INTO ${WEBHOOK_CURSORS_TABLE} (subscription, xid, id) SELECT 'big', xid, id FROM ${EVENTS_TABLE};
     INSERT INTO ${IDEMPOTENCY_TABLE} (scope, key, fingerprint, status, headers, body, expires_at)
       VALUES ('s', 'k', 'f', 201, '{}', '{}', now() + interval '1 day');
     INSERT INTO ${SECRETS_TABLE} (name, value) VALUES ('feed-positions', '\\x00');
     INSERT INTO ${HISTORY_TABLE} (name, checksum) VALUES ('0001_init.sql', 'x');`,
  );
}

async function ownRowCounts(db: TestDatabase): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of OWN_TABLE_NAMES)
    out[t] = Number((await db.executor.query({ text: `SELECT count(*)::text AS n FROM ${t}`, values: [] })).rows[0]!.n);
  return out;
}

describe.each(KINDS)("a database where webhooks have run, on %s", (kind) => {
  const v1 = compileText(V1, "schema.resource");
  let db: TestDatabase;
  beforeAll(async () => {
    db = await freshDatabase(kind, "own_after");
    await asAfterWebhooks(db, v1.ddl);
    expect(Object.values(await ownRowCounts(db)).every((n) => n === 1)).toBe(true);
  });
  afterAll(() => db?.drop());

  it("the catalog every comparison and pull read has none of resc's tables or sequences", async () => {
    const catalog = await readCatalog(db.executor, ["public"]);
    expect(catalog.tables.map((t) => t.name)).toEqual(["Orders"]);
    expect(catalog.tables[0]!.capture).toBe("orders");
    expect(catalog.sequences.filter((s) => isOwnRelation(s.name))).toEqual([]);
  });

  it("the drift gate finds no drift and proposes no drop", async () => {
    expect((await driftSteps(db.executor, v1.schema)).map((s) => s.sql)).toEqual([]);
  });

  it("the live schema check (resc serve, resc dev --database-url, /ready) finds nothing missing", async () => {
    expect(await findSchemaMismatches(db.executor, v1.schema)).toEqual([]);
  });

  it("the scratch prelude does not copy resc's capture function", async () => {
    expect((await readPrelude(db.executor)).filter((s) => /resc_/.test(s))).toEqual([]);
  });

  it("resc dev's schema evolution applies a change and keeps resc's tables and their rows", async () => {
    const v2 = compileText(V2, "schema.resource");
    const r = await migrateEmbedded(db.executor, v2.ddl, declaredRenames(v2.schema), false);
    expect(r).toEqual({ applied: 1 });
    expect(Object.values(await ownRowCounts(db)).every((n) => n === 1)).toBe(true);
    // And back: dropping the added column is the only loss it names.
    const back = await migrateEmbedded(db.executor, v1.ddl, declaredRenames(v1.schema), false);
    expect(back).toEqual({ refused: [expect.stringMatching(/tag/)] });
    expect(JSON.stringify(back)).not.toMatch(/resc_/);
  });
});

describe("resc migrate diff", () => {
  it("proposes nothing about resc's own tables that the committed migrations create (scratch on PGlite)", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "resc-own-diff-"));
    try {
      // A migration that provisions resc's tables beside the schema's, as one written by hand for a service might.
      const v1 = compileText(V1, "schema.resource");
      await mkdir(path.join(dir, "migrations"));
      const own = [...WEBHOOK_DDL, IDEMPOTENCY_TABLE_DDL, SECRETS_TABLE_DDL, HISTORY_TABLE_DDL]
        .map((sql) => `${sql};`)
        .join("\n");
      await writeFile(path.join(dir, "migrations", "0001_init.sql"), `${v1.ddl}\n${own}\n`);
      expect((await pendingSteps(v1.schema, path.join(dir, "migrations"))).steps).toEqual([]);
      const v2 = compileText(V2, "schema.resource");
      const steps = (await pendingSteps(v2.schema, path.join(dir, "migrations"))).steps.map((s) => s.sql);
      expect(steps).toEqual([expect.stringMatching(/ADD COLUMN "tag" text/)]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!server)("the commands on a database where webhooks have run", () => {
  let db: TestDatabase;
  let dir = "";
  const resc = (args: string[]) => runNode([path.resolve("bin/resc.js"), ...args], { cwd: dir, timeout: 120_000 });
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "resc-own-"));
    await writeFile(path.join(dir, "schema.resource"), V1);
    db = await freshDatabase("pg", "own_cli");
  });
  afterAll(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it("resc migrate deploy does not count them as tables a user made", async () => {
    // A service with webhooks and idempotency keys ran on the database before any migration was deployed.
    for (const sql of [...CAPTURE_DDL, ...WEBHOOK_DDL, IDEMPOTENCY_TABLE_DDL, SECRETS_TABLE_DDL])
      await db.executor.script(sql);
    const sql = emitSql(compileText(V1).schema);
    expect(await deployMigrations(db.url!, [{ name: "0001_init.sql", sql, checksum: "c" }])).toEqual(["0001_init.sql"]);
  });

  it("resc check --database-url passes, and resc migrate baseline writes none of them", async () => {
    const fresh = await freshDatabase("pg", "own_baseline");
    try {
      await asAfterWebhooks(fresh, compileText(V1).ddl);
      await fresh.executor.script(`DELETE FROM ${HISTORY_TABLE}`);
      const check = await resc(["check", "schema.resource", "--database-url", fresh.url!]);
      expect(check.code, check.stderr).toBe(0);
      const baseline = await resc(["migrate", "baseline", "schema.resource", "--database-url", fresh.url!]);
      expect(baseline.code, baseline.stderr).toBe(0);
      const text = await readFile(path.join(dir, "migrations", "0001_baseline.sql"), "utf8");
      for (const t of [DELIVERIES_TABLE, WEBHOOK_CURSORS_TABLE, IDEMPOTENCY_TABLE, HISTORY_TABLE])
        expect(text).not.toContain(t);
      // The capture function once, as the schema's own DDL states it; not again copied from the database.
      expect(text.match(/CREATE (?:OR REPLACE )?FUNCTION [\w."]*resc_capture/g)).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });
});
