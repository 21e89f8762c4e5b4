/**
 * Several stateless nodes behind a balancer (docs/deploy.md):
 * two `resc serve` processes on one database, behind a round-robin
 * balancer built on Hono's proxy helper. A cursor issued by one node is
 * continued by the other; concurrent conflicting writes through both give
 * one success; two `resc migrate deploy` started at once apply each
 * migration once.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { proxy } from "hono/proxy";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { freePort } from "../support/ports.js";
import { runNode } from "../support/run.js";
import { compileText } from "../support/service.js";

const SCHEMA = `table codes {
  id   bigint @primary_key @default(identity) @sortable
  code text   @unique @filterable

  resource "/codes" { ops = [crud, list] }
}
`;

const db: TestDatabase = await createTestDatabase("nodes");
let dir = "";
const nodes: { child: ChildProcess; base: string }[] = [];
let balancer: ServerType | undefined;
let front = "";

async function startNode(): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  let out = "";
  const child = spawn(
    process.execPath,
    [
      path.resolve("bin/resc.js"),
      "serve",
      "schema.resource",
      "--database-url",
      db.url!,
      "--port",
      String(port),
      "--log-level",
      "warn",
      "--drain-seconds",
      "0",
    ],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${base}/live`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, base };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`resc serve did not start: ${out}`);
}

beforeAll(async () => {
  if (db.kind !== "pg") return;
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-nodes-"));
  await writeFile(path.join(dir, "schema.resource"), SCHEMA);
  await db.executor.script(
    compileText(SCHEMA).ddl + "\nINSERT INTO codes (code) SELECT 'c' || g FROM generate_series(1, 6) g;",
  );
  nodes.push(await startNode(), await startNode());
  // Round robin over both nodes: each request goes to the other node than the one before.
  let turn = 0;
  const app = new Hono();
  app.all("*", (c) => {
    const target = nodes[turn++ % nodes.length]!;
    const url = new URL(c.req.url);
    return proxy(`${target.base}${url.pathname}${url.search}`, { raw: c.req.raw });
  });
  const port = await freePort();
  balancer = serve({ fetch: app.fetch, hostname: "127.0.0.1", port });
  front = `http://127.0.0.1:${port}`;
}, 60_000);

afterAll(async () => {
  for (const n of nodes) n.child.kill("SIGKILL");
  await new Promise<void>((r) => (balancer ? balancer.close(() => r()) : r()));
  if (dir) await rm(dir, { recursive: true, force: true });
  await db.drop();
});

describe.skipIf(db.kind !== "pg")("two resc serve nodes behind a balancer", () => {
  it("continue each other's pages through the balancer", async () => {
    let page = (await (await fetch(`${front}/codes?sort=id&per_page=2`)).json()) as {
      items: { code: string }[];
      next_cursor?: string;
    };
    const seen = page.items.map((i) => i.code);
    while (page.next_cursor) {
      const r = await fetch(`${front}/codes?sort=id&per_page=2&cursor=${encodeURIComponent(page.next_cursor)}`);
      expect(r.status).toBe(200);
      page = (await r.json()) as typeof page;
      seen.push(...page.items.map((i) => i.code));
    }
    expect(seen).toEqual(["c1", "c2", "c3", "c4", "c5", "c6"]);
  });

  it("give one success to concurrent conflicting writes through both nodes", async () => {
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () =>
        fetch(`${front}/codes`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: '{"code":"same"}',
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(11);
  });

  it("apply each migration once when both run resc migrate deploy at once", async () => {
    const migrations = path.join(dir, "migrations");
    const fresh = await createTestDatabase("nodes_migrate");
    try {
      const { mkdir } = await import("node:fs/promises");
      await mkdir(migrations, { recursive: true });
      await writeFile(path.join(migrations, "0001_a.sql"), "CREATE TABLE a (id int);\n");
      await writeFile(path.join(migrations, "0002_b.sql"), "CREATE TABLE b (id int);\n");
      const runs = await Promise.all(
        [0, 1].map(() =>
          runNode([path.resolve("bin/resc.js"), "migrate", "deploy", fresh.url!], { cwd: dir, timeout: 60_000 }),
        ),
      );
      expect(runs.map((r) => r.code)).toEqual([0, 0]);
      const history = await fresh.executor.query({
        text: "SELECT name FROM resc_migrations ORDER BY name",
        values: [],
      });
      expect(history.rows.map((r) => r.name)).toEqual(["0001_a.sql", "0002_b.sql"]);
      expect(
        runs
          .map((r) => r.stdout)
          .join("\n")
          .match(/^applied 0001_a\.sql$/gm),
      ).toHaveLength(1);
    } finally {
      await fresh.drop();
    }
  });
});
