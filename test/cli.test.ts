/**
 * The `resc` command as a user runs it: the built binary (`bin/resc.js`,
 * built by `npm run build`, which `npm test` runs first).
 */
import { spawn } from "node:child_process";
import { runNode } from "./support/run.js";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./support/db.js";
import { writeUngovernedSpec } from "./support/ungoverned.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const BIN = path.join(ROOT, "bin/resc.js");
const tmp = mkdtempSync(path.join(tmpdir(), "resc-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/**
 * spec.resource without its auth and access blocks (test/support/ungoverned.ts): confined by the x-org-id hooks
 * module, served without tokens, as these tests of resc dev's hooks and data need.
 */
const UNGOVERNED = writeUngovernedSpec(mkdtempSync(path.join(tmp, "ungoverned-")));

/** Runs the built `resc` with `args`, asynchronously (test/support/run.ts). */
function resc(args: string[], cwd = ROOT) {
  return runNode([BIN, ...args], { cwd });
}

describe("resc check", () => {
  it("accepts the reference application", async () => {
    const r = await resc(["check", "spec.resource"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("spec.resource: ok");
  });

  it("prints a code frame per error and exits non-zero", async () => {
    const file = path.join(tmp, "broken.resource");
    writeFileSync(
      file,
      'table t {\n  id integer @primary_key\n  name text @sortabel\n  resource "/t" { ops = [reads] }\n}\n',
    );
    const r = await resc(["check", file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/@sortabel/);
    expect(r.stderr).toMatch(/broken\.resource:3:13/);
    expect(r.stderr).toMatch(/name text @sortabel\n.*\^+/);
  });

  it("names an unreadable file", async () => {
    const r = await resc(["check", "no-such.resource"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("cannot read no-such.resource");
  });
});

describe("resc sql and resc generate", () => {
  it("prints the DDL", async () => {
    const r = await resc(["sql", "spec.resource"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/CREATE TABLE "tasks"/);
    expect(r.stdout).toMatch(/CREATE TYPE "task_status" AS ENUM/);
  });

  it("--capture prints only the change feed's capture, which makes tables created without it feed", async () => {
    // A stranger's layout: a quoted name in a schema of its own, bigint identity keys, one table with events.
    const schema = (events: boolean) =>
      [
        "table order_items {",
        "  id    bigint @primary_key @default(identity)",
        "  label text\n",
        '  @@map("Order Items")',
        '  @@schema("shop")\n',
        '  resource "/order-items" {',
        "    ops = [crud, list]",
        events ? "    events = true" : "",
        "  }\n}\n",
        "table notes {",
        "  id bigint @primary_key @default(identity)\n",
        '  resource "/notes" { ops = [list] }\n}\n',
      ].join("\n");
    const withEvents = path.join(tmp, "capture.resource");
    const without = path.join(tmp, "no-capture.resource");
    writeFileSync(withEvents, schema(true));
    writeFileSync(without, schema(false));
    const capture = await resc(["sql", withEvents, "--capture"]);
    expect(capture.code, capture.stderr).toBe(0);
    expect(capture.stdout).toContain("CREATE TABLE IF NOT EXISTS resc_events");
    expect(capture.stdout).not.toMatch(/CREATE TABLE "/);
    expect(capture.stdout.match(/CREATE TRIGGER/g)).toHaveLength(1);
    const none = await resc(["sql", without, "--capture"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("declares no resource with events = true");
    // Tables made without the capture (a dump, another tool), then the capture alone: a write reaches the outbox.
    const tables = await resc(["sql", without]);
    expect(tables.code, tables.stderr).toBe(0);
    const db = await createTestDatabase("cli_capture");
    try {
      await db.executor.script(tables.stdout);
      await db.executor.script(capture.stdout);
      await db.executor.script(`INSERT INTO shop."Order Items" (label) VALUES ('first')`);
      const outbox = await db.executor.query({
        text: "SELECT tbl, op, new->>'label' AS label FROM resc_events",
        values: [],
      });
      expect(outbox.rows).toEqual([{ tbl: "order_items", op: "i", label: "first" }]);
    } finally {
      await db.drop();
    }
  });

  it("generates, and --check finds stale files", async () => {
    const dir = path.join(tmp, "gen");
    cpSync(path.join(ROOT, "spec.resource"), path.join(dir, "spec.resource"), { recursive: true });
    const first = await resc(["generate", "spec.resource"], dir);
    expect(first.code, first.stderr).toBe(0);
    const written = first.stdout
      .trim()
      .split("\n")
      .map((l) => l.replace(/^wrote /, ""));
    expect(written.length).toBeGreaterThan(0);
    for (const f of written) expect(readFileSync(path.join(dir, f), "utf8")).toMatch(/resc/);
    expect((await resc(["generate", "--check", "spec.resource"], dir)).code).toBe(0);
    const src = readFileSync(path.join(dir, "spec.resource"), "utf8");
    writeFileSync(path.join(dir, "spec.resource"), src.replace(/title(\s+)text/, "title$1varchar(300)"));
    const stale = await resc(["generate", "--check", "spec.resource"], dir);
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toMatch(/stale: /);
  });
});

/** Starts `resc dev` and resolves with its base URL once it prints it. */
function startDev(args: string[]): Promise<{ url: string; stop: () => Promise<void>; output: () => string }> {
  const child = spawn(process.execPath, [BIN, "dev", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        resolve({
          url: m[1],
          output: () => out,
          stop: () =>
            new Promise<void>((done) => {
              child.once("exit", () => done());
              child.kill("SIGTERM");
            }),
        });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}:\n${out}`)));
  });
}

describe("resc dev", () => {
  const HOOKS = "test/fixtures-hooks/tenant.ts";

  it("refuses to serve a schema whose scoped tables have no hooks, naming each", async () => {
    const r = await resc(["dev", UNGOVERNED, "--port", "0", "--data-dir", path.join(tmp, "never")]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/registration error/);
    expect(r.stderr).toMatch(/\/users: @@scoped on table users requires a BeforeQuery hook/);
    // A soft-delete column needs no hook: resc filters it itself (docs/decisions/1367-access-rules.md).
    expect(r.stderr).not.toMatch(/@soft_delete/);
    expect(r.stderr).toMatch(/--hooks MODULE/);
    // Refused before the embedded database was created.
    expect(() => readdirSync(path.join(tmp, "never"))).toThrow();
  });

  it("names a hooks module that breaks the contract", async () => {
    const bad = path.join(tmp, "bad-hooks.mjs");
    writeFileSync(bad, "export const hooks = { beforeQuery: { users: 42 }, onRead: {} };\n");
    const r = await resc(["dev", "spec.resource", "--port", "0", "--hooks", bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/beforeQuery\.users is not a function/);
    expect(r.stderr).toMatch(/unknown hook kind "onRead"/);
    const missing = await resc(["dev", "spec.resource", "--port", "0", "--hooks", path.join(tmp, "no-such-hooks.ts")]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/cannot load hooks module/);
  });

  it("serves spec.resource with --hooks on the embedded database, keeps rows across restarts, logs each request", async () => {
    const dataDir = path.join(tmp, "db");
    const args = [
      UNGOVERNED,
      "--seed",
      "examples/tracker/seed.sql",
      "--hooks",
      HOOKS,
      "--port",
      "0",
      "--data-dir",
      dataDir,
    ];
    let dev = await startDev(args);
    let created: { id: number | string };
    try {
      const list = await fetch(`${dev.url}/tasks?per_page=2`);
      expect(list.status).toBe(200);
      const body = (await list.json()) as { items: unknown[] };
      expect(body.items.length).toBeGreaterThan(0);
      // The hooks module confines by the x-org-id header: each org sees only itself.
      const orgs = (await (await fetch(`${dev.url}/orgs`)).json()) as { items: { id: string }[] };
      expect(orgs.items.map((o) => o.id)).toEqual(["00000000-0000-4000-8000-000000000001"]);
      const other = (await (
        await fetch(`${dev.url}/orgs`, { headers: { "x-org-id": "00000000-0000-4000-8000-000000000002" } })
      ).json()) as { items: { id: string }[] };
      expect(other.items.map((o) => o.id)).toEqual(["00000000-0000-4000-8000-000000000002"]);
      const lists = (await (await fetch(`${dev.url}/lists`)).json()) as { items: { id: number }[] };
      const post = await fetch(`${dev.url}/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ list_id: lists.items[0].id, title: "survives a restart", labels: [] }),
      });
      expect(post.status, await post.clone().text()).toBe(201);
      created = (await post.json()) as { id: number };
      expect(dev.output()).toMatch(/GET \/tasks\?per_page=2 200 \d+ms/);
      expect(dev.output()).not.toMatch(/seed .* was not applied/);
    } finally {
      await dev.stop();
    }
    expect(readdirSync(dataDir).length).toBeGreaterThan(0);
    dev = await startDev(args);
    try {
      // The database exists: the seed is not run again, and resc dev says so rather than skip it silently.
      expect(dev.output()).toContain(
        `resc: the seed examples/tracker/seed.sql was not applied: the embedded database in ${dataDir} already exists (--reset starts fresh)`,
      );
      const again = await fetch(`${dev.url}/tasks/${created.id}`);
      expect(again.status).toBe(200);
      expect(((await again.json()) as { title: string }).title).toBe("survives a restart");
      // DELETE on the soft-deleting table marks the row; the hook hides it from then on.
      expect((await fetch(`${dev.url}/tasks/${created.id}`, { method: "DELETE" })).status).toBe(204);
      expect((await fetch(`${dev.url}/tasks/${created.id}`)).status).toBe(404);
    } finally {
      await dev.stop();
    }
  });

  it("serves spec.resource under its declared rules with only the tasks' actions as hooks, to resc token's token", async () => {
    const dev = await startDev([
      "spec.resource",
      "--seed",
      "examples/tracker/seed.sql",
      "--hooks",
      "examples/tracker/hooks.ts",
      "--port",
      "0",
      "--data-dir",
      path.join(tmp, "governed-db"),
    ]);
    try {
      const ACME = "00000000-0000-4000-8000-000000000001";
      // Ada of Acme, signed with the development secret resc dev verifies with (docs/access.md).
      const minted = await resc([
        "token",
        "spec.resource",
        "--sub",
        "00000000-0000-4000-8000-000000000101",
        "--claim",
        `org=${ACME}`,
      ]);
      expect(minted.code, minted.stderr).toBe(0);
      const auth = { authorization: `Bearer ${minted.stdout.trim()}` };
      expect((await fetch(`${dev.url}/tasks`)).status).toBe(401);
      const orgs = (await (await fetch(`${dev.url}/orgs`, { headers: auth })).json()) as { items: { id: string }[] };
      expect(orgs.items.map((o) => o.id)).toEqual([ACME]);
      const tasks = (await (await fetch(`${dev.url}/tasks`, { headers: auth })).json()) as { items: { id: number }[] };
      expect(tasks.items.map((t) => t.id).sort()).toEqual([1, 2, 3, 4]);
      expect((await fetch(`${dev.url}/tasks/6`, { headers: auth })).status).toBe(404);
      const done = await fetch(`${dev.url}/tasks/1/complete`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: "{}",
      });
      expect(done.status, await done.clone().text()).toBe(200);
    } finally {
      await dev.stop();
    }
  });

  it("serves Pagila's change feeds on the embedded database: /films/events, /rentals/events, /payments/events", async () => {
    const seed = path.join(tmp, "pagila-seed.sql");
    writeFileSync(
      seed,
      `INSERT INTO language (language_id, name) VALUES (1, 'English');
       INSERT INTO film (film_id, title, language_id, rating, fulltext) VALUES (1, 'FIRST', 1, 'R', ''), (2, 'SECOND', 1, 'R', '');`,
    );
    const dev = await startDev([
      "fixtures/pagila/pagila.resource",
      "--hooks",
      "fixtures/pagila/hooks.ts",
      "--seed",
      seed,
      "--port",
      "0",
      "--data-dir",
      path.join(tmp, "pagila-db"),
    ]);
    try {
      const { openStream } = await import("./support/sse.js");
      const films = await openStream(`${dev.url}/films/events?rating=eq.PG&select=title`);
      const rentals = await openStream(`${dev.url}/rentals/events`);
      const payments = await openStream(`${dev.url}/payments/events`);
      expect([films.status, rentals.status, payments.status]).toEqual([200, 200, 200]);
      for (const [id, rating] of [
        [2, "NC-17"],
        [1, "PG"],
      ]) {
        const r = await fetch(`${dev.url}/films/${id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ rating }),
        });
        expect(r.status).toBe(200);
      }
      // Only the film now rated PG: it entered the filter, so it is an update carrying the selected column.
      const [event] = await films.until(1);
      expect(event).toEqual({
        id: expect.stringMatching(/^[A-Za-z0-9_-]{32}$/),
        event: "update",
        data: { film_id: 1, title: "FIRST" },
      });
      for (const s of [films, rentals, payments]) s.close();
    } finally {
      await dev.stop();
    }
  }, 120_000);

  it("refuses to migrate an embedded database when the schema change loses data, suggesting the flags", async () => {
    const dir = path.join(tmp, "changed");
    const schema = path.join(dir, "spec.resource");
    cpSync(path.join(ROOT, "spec.resource"), schema);
    const args = [schema, "--port", "0", "--data-dir", path.join(dir, "db"), "--hooks", HOOKS];
    const dev = await startDev(args);
    await dev.stop();
    writeFileSync(schema, readFileSync(schema, "utf8").replace(/title(\s+)text/, "title$1varchar(300)"));
    const again = await resc(["dev", ...args]);
    expect(again.code).not.toBe(0);
    // A narrowing type change: the rows could not all follow (decision 1241).
    expect(again.stderr).toMatch(/changes \w+\.title from text to character varying\(300\)/);
    expect(again.stderr).toMatch(/--accept-data-loss/);
    expect(again.stderr).toMatch(/--reset/);
  });

  it("refuses a database that lacks what the schema declares, listing every mismatch", async (t) => {
    const db = await createTestDatabase("cli_mismatch");
    if (!db.url) {
      // Only PGlite is available: there is no server URL to hand to resc dev.
      await db.drop();
      t.skip();
    }
    try {
      await db.executor.script('CREATE TABLE "orgs" (id uuid primary key)');
      const r = await resc(["dev", "spec.resource", "--port", "0", "--hooks", HOOKS, "--database-url", db.url ?? ""]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/table "tasks" is missing/);
      expect(r.stderr).toMatch(/column "orgs\.name" is missing/);
      expect(r.stderr).toMatch(/enum type "task_status" is missing/);
    } finally {
      await db.drop();
    }
  });
});

describe("the command's own words", () => {
  it("describes the migrate topic as a whole, not with deploy's sentence", async () => {
    const r = await resc(["migrate", "--help"]);
    expect(r.stdout.split("\n")[0]).toBe(
      "Write, apply and inspect migrations: diff (write the next one), deploy (apply the pending ones), status, baseline (adopt an existing database).",
    );
  });

  it("fails in one style, `Error: …` unwrapped, whichever command fails", async () => {
    const missing = path.join(tmp, "missing.resource");
    for (const args of [
      ["sql", missing],
      ["openapi", missing],
      ["check", missing],
      ["migrate", "status"],
    ]) {
      const r = await runNode([BIN, ...args], { cwd: tmp, env: { DATABASE_URL: "" } });
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr, args.join(" ")).toMatch(/^Error: /);
      expect(r.stderr, args.join(" ")).not.toContain("›");
    }
  });

  it("tells resc serve's user to give the URL as the flag it is", async () => {
    const r = await runNode([BIN, "serve", "spec.resource"], { cwd: ROOT, env: { DATABASE_URL: "" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("give the database URL with --database-url or in DATABASE_URL");
  });
});
