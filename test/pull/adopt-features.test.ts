/**
 * `resc pull` on a database made the way ORMs and production databases
 * make them (docs/decisions/1257-database-names.md, 1258): Prisma-style
 * quoted names (`"UserAccount"`, `"createdAt"`, an enum `"Role"`), a second
 * schema, `COMMENT ON`, a default calling an extension's function and one
 * calling the application's own function, a domain with NOT NULL, an index
 * with an operator class, a `NULLS NOT DISTINCT` unique constraint and a
 * partitioned table. The pulled file compiles, says what it leaves out,
 * passes the drift gate, is served by `resc dev` with the database's own
 * rows, baselines, and `resc sql` of it applies to an empty database and
 * pulls back to the same declarations.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { driftSteps, introspect, readPrelude } from "../../catalog/index.js";
import { pulledFile } from "../../cli/pull/pull-file.js";
import { compileSource, emitSql } from "../../compiler/index.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { declarations } from "../support/pulled.js";
import { runNode } from "../support/run.js";
import { startServe } from "../support/serve-process.js";
import { servedCounts, tableCounts } from "../support/adopt.js";

const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
const databases: TestDatabase[] = [];
let db: TestDatabase | undefined;

const SETUP = `
  CREATE EXTENSION IF NOT EXISTS "uuid-ossp";
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE SCHEMA app;
  CREATE FUNCTION app.next_code() RETURNS text LANGUAGE sql AS $$ SELECT 'C-' || floor(random() * 1000000)::text $$;
  CREATE TYPE "Role" AS ENUM ('USER', 'ADMIN');
  CREATE DOMAIN "Flag" boolean NOT NULL;
  CREATE TABLE "UserAccount" (
    id serial PRIMARY KEY,
    "createdAt" timestamptz NOT NULL DEFAULT now(),
    "emailAddress" text NOT NULL UNIQUE,
    role "Role" NOT NULL DEFAULT 'USER',
    active "Flag" DEFAULT true,
    external_id uuid NOT NULL DEFAULT uuid_generate_v4(),
    code text NOT NULL DEFAULT app.next_code(),
    nickname text,
    CONSTRAINT one_nick UNIQUE NULLS NOT DISTINCT ("emailAddress", nickname)
  );
  COMMENT ON TABLE "UserAccount" IS 'People who sign in.';
  COMMENT ON COLUMN "UserAccount"."emailAddress" IS 'Where we write to.';
  CREATE INDEX user_nick_trgm ON "UserAccount" USING gin (nickname gin_trgm_ops);
  CREATE INDEX user_email_desc ON "UserAccount" ("emailAddress" DESC);
  CREATE TABLE app."AuditEntry" (
    id bigserial PRIMARY KEY,
    "userId" integer NOT NULL REFERENCES "UserAccount" (id),
    at date NOT NULL
  );
  CREATE INDEX ON app."AuditEntry" ("userId");
  CREATE TABLE app.measurement (id integer NOT NULL, taken date NOT NULL, PRIMARY KEY (id, taken))
    PARTITION BY RANGE (taken);
  CREATE TABLE app.measurement_2026 PARTITION OF app.measurement FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
  INSERT INTO "UserAccount" ("emailAddress", nickname) VALUES ('a@example.com', 'ann'), ('b@example.com', NULL);
  INSERT INTO app."AuditEntry" ("userId", at) VALUES (1, '2026-11-01'), (1, '2026-11-02'), (2, '2026-11-03');
  INSERT INTO app.measurement VALUES (1, '2026-05-01');
`;

beforeAll(async () => {
  if (!server) return;
  db = await createTestDatabase("pull_adopt");
  databases.push(db);
  await db.executor.script(SETUP);
});
afterAll(async () => {
  for (const d of databases) await d.drop();
});

const resc = (args: string[], cwd: string) =>
  runNode([path.resolve("bin/resc.js"), ...args], { cwd, timeout: 180_000 });

describe.skipIf(!server)("resc pull of an ORM-made database with two schemas", () => {
  let text = "";
  let leftOut: string[] = [];

  it("names everything plainly, keeps the database's names with @map/@@map/@@schema, and says what it leaves out", async () => {
    const read = await introspect(db!.url!, ["public", "app"]);
    const pulled = pulledFile(read.catalog, read.extras, "adopt.resource");
    if (!pulled.ok) throw new Error(pulled.diagnostics.map((d) => d.message).join("\n"));
    ({ text, leftOut } = pulled);
    expect(compileSource(text, "adopt.resource").diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(text).toMatch(/^enum role @map\("Role"\) \{ USER ADMIN \}$/m);
    expect(text).toMatch(/^domain flag boolean @map\("Flag"\)$/m);
    expect(text).toMatch(/\/\/\/ People who sign in\.\ntable user_account \{/);
    expect(text).toMatch(/  \/\/\/ Where we write to\.\n  email_address +text +@map\("emailAddress"\) @unique/);
    expect(text).toMatch(/  created_at +timestamptz +@map\("createdAt"\) @default\(now\(\)\)/);
    expect(text).toMatch(/  role +role +@default\(USER\)/);
    expect(text).toMatch(/@@map\("UserAccount"\)/);
    expect(text).toMatch(/table audit_entry \{[^}]*user_id +integer +@map\("userId"\) @ref\(user, user_account\)/);
    expect(text).toMatch(/table audit_entry \{[^}]*@@map\("AuditEntry"\)\n  @@schema\("app"\)/);
    const said = leftOut.join("\n");
    expect(said).toMatch(/NOT NULL of domain Flag/);
    expect(said).toMatch(/index UserAccount\.user_nick_trgm: its definition carries .*gin_trgm_ops/);
    expect(said).toMatch(/index UserAccount\.user_email_desc: its definition carries .*DESC/);
    expect(said).toMatch(/unique UserAccount\.one_nick: NULLS NOT DISTINCT/);
    expect(said).toMatch(/partitions of app\.measurement: partitioned by RANGE \(taken\)/);
    expect(said).toMatch(/extension pg_trgm: nothing described needs it/);
    expect(said).not.toMatch(/extension uuid-ossp/);
  });

  it("passes the drift gate, the application's own function and the extension's included", async () => {
    const schema = compileSource(text, "adopt.resource").schema;
    expect(emitSql(schema)).toMatch(/^CREATE EXTENSION IF NOT EXISTS "uuid-ossp";$/m);
    expect(emitSql(schema)).toMatch(/^CREATE SCHEMA IF NOT EXISTS "app";$/m);
    expect((await readPrelude(db!.executor)).join("\n")).toMatch(/FUNCTION app\.next_code\(\)/);
    expect((await driftSteps(db!.executor, schema)).map((s) => s.sql)).toEqual([]);
  });

  it("is served by resc dev under the file's names, rows read from the database's", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "resc-adopt-"));
    try {
      const file = path.join(dir, "adopt.resource");
      // A pulled reference is not expandable until a person says so; this one is, to read across the schemas.
      await writeFile(file, text.replace("@ref(user, user_account)", "@ref(user, user_account, expandable)"));
      const serve = await startServe(file, ["--database-url", db!.url!]);
      try {
        const users = await fetch(`${serve.base}/user_account?count=exact&sort=email_address`);
        const body = (await users.json()) as { items: Record<string, unknown>[]; total: number };
        expect(users.status, JSON.stringify(body)).toBe(200);
        expect(body.total).toBe(2);
        expect(body.items.map((u) => [u.email_address, u.role])).toEqual([
          ["a@example.com", "USER"],
          ["b@example.com", "USER"],
        ]);
        const entries = await fetch(`${serve.base}/audit_entry?user_id=eq.1&expand=user&count=exact`);
        const e = (await entries.json()) as { items: { user: { email_address: string } }[]; total: number };
        expect(entries.status).toBe(200);
        expect(e.total).toBe(2);
        expect(e.items[0]!.user.email_address).toBe("a@example.com");
      } finally {
        await serve.stop();
      }
      // resc dev serves every table the file serves, each with the database's exact row count.
      const counts = await tableCounts(db!, ["public", "app"]);
      const served = await servedCounts(dir, db!.url!, "adopt.resource");
      expect(served).toEqual({ "public.UserAccount": 2, "app.AuditEntry": 3, "app.measurement": 1 });
      for (const [t, n] of Object.entries(served)) expect(n, t).toBe(counts[t]);
      // Baselined, the first migration recreates the function and extension its defaults call.
      const baseline = await resc(["migrate", "baseline", "adopt.resource", "--database-url", db!.url!], dir);
      expect(baseline.code, baseline.stderr).toBe(0);
      const migration = await readFile(path.join(dir, "migrations", "0001_baseline.sql"), "utf8");
      expect(migration).toMatch(/CREATE OR REPLACE FUNCTION app\.next_code\(\)/);
      expect((await resc(["migrate", "diff", "adopt.resource", "--name", "none"], dir)).stdout).toMatch(/up to date/);
      // An edit to a table of the second schema, under a mapped name, migrated with every row kept.
      const edited = (await readFile(file, "utf8")).replace(/(table audit_entry \{\n)/, "$1  note text?\n");
      await writeFile(file, edited);
      const diff = await resc(["migrate", "diff", "adopt.resource", "--name", "note"], dir);
      expect(diff.code, diff.stderr).toBe(0);
      expect(await readFile(path.join(dir, "migrations", "0002_note.sql"), "utf8")).toMatch(
        /ALTER TABLE "app"\."AuditEntry" ADD COLUMN "note" text;/,
      );
      const deploy = await resc(["migrate", "deploy", db!.url!], dir);
      expect(deploy.code, deploy.stderr).toBe(0);
      expect(await tableCounts(db!, ["public", "app"])).toEqual(counts);
      const gate = await resc(["check", "adopt.resource", "--database-url", db!.url!], dir);
      expect(gate.code, gate.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("resc sql of the pulled file, after the database's own function, builds a database that pulls back the same", async () => {
    const empty = await createTestDatabase("pull_adopt_again");
    databases.push(empty);
    await empty.executor.script(
      "CREATE SCHEMA app; CREATE FUNCTION app.next_code() RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$;",
    );
    await empty.executor.script(emitSql(compileSource(text, "adopt.resource").schema));
    const again = await introspect(empty.url!, ["public", "app"]);
    const back = pulledFile(again.catalog, again.extras, "adopt.resource");
    if (!back.ok) throw new Error("does not pull back");
    // Doc comments come back (resc sql writes COMMENT ON); what was left out is the first database's own.
    expect(back.text).toMatch(/\/\/\/ Where we write to\./);
    expect(declarations(back.text)).toBe(declarations(text));
  });
});
