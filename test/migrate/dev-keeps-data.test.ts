/**
 * `resc dev` keeps the rows of its embedded database when the schema
 * changes (docs/decisions/1241-dev-keeps-data.md): an added
 * column is migrated in place; a change that loses data stops the start,
 * naming it and the flags, until `--accept-data-loss`.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedDatabase, SCHEMA_MARKER } from "../../runtime/exec/embedded.js";
import { runNode } from "../support/run.js";
import { freePort } from "../support/ports.js";
import { startResc } from "../support/serve-process.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-dev-keeps-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const V1 = `table notes {
  id   bigint @primary_key @default(identity)
  body text

  resource "/notes" { ops = [crud, list] }
}
`;

/** Starts `resc dev` on the schema, runs `fn` against it, stops it; returns what it printed. */
async function serving(extra: string[], fn: (base: string) => Promise<void>): Promise<string> {
  const dev = await startResc("dev", "schema.resource", ["--data-dir", "db", ...extra], { cwd: dir });
  try {
    await fn(dev.base);
  } finally {
    await dev.stop();
  }
  return dev.output();
}

describe("resc dev and a changing schema", () => {
  it("migrates the embedded database in place when a column is added, keeping the rows", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    await serving([], async (base) => {
      const r = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"body":"kept"}',
      });
      expect(r.status).toBe(201);
    });
    await writeFile(path.join(dir, "schema.resource"), V1.replace("  body text\n", "  body text\n  tag  text?\n"));
    const out = await serving([], async (base) => {
      const page = (await (await fetch(`${base}/notes`)).json()) as { items: unknown[] };
      expect(page.items).toEqual([{ id: 1, body: "kept", tag: null }]);
    });
    expect(out).toMatch(/migrated the embedded database to the changed schema \(1 step\); rows kept/);
  });

  it("refuses a change that loses data, naming it and the flags, then applies it with --accept-data-loss", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    const port = await freePort();
    const refused = await runNode(
      [path.resolve("bin/resc.js"), "dev", "schema.resource", "--port", String(port), "--data-dir", "db"],
      {
        cwd: dir,
        timeout: 60_000,
      },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/drops column notes\.tag/);
    expect(refused.stderr).toMatch(/--accept-data-loss/);
    expect(refused.stderr).toMatch(/--reset/);
    await serving(["--accept-data-loss"], async (base) => {
      const page = (await (await fetch(`${base}/notes`)).json()) as { items: unknown[] };
      expect(page.items).toEqual([{ id: 1, body: "kept" }]);
    });
  });

  it("a second resc dev on a taken port changes nothing: the first keeps serving the same directory", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    const marker = path.join(dir, "db", SCHEMA_MARKER);
    await serving([], async (base) => {
      const before = await readFile(marker, "utf8");
      const port = new URL(base).port;
      await writeFile(path.join(dir, "changed.resource"), V1.replace("  body text\n", "  body text\n  later text?\n"));
      const second = await runNode(
        [path.resolve("bin/resc.js"), "dev", "changed.resource", "--port", port, "--data-dir", "db"],
        { cwd: dir, timeout: 60_000 },
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/port \d+ on 127\.0\.0\.1 is already in use/);
      expect(second.stdout).not.toMatch(/migrated/);
      expect(await readFile(marker, "utf8")).toBe(before);
      const r = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"body":"still served"}',
      });
      expect(r.status).toBe(201);
    });
  });

  it("one process at a time: a second resc dev on the same directory is refused, naming the holder's pid", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    await serving([], async () => {
      const holder = JSON.parse(await readFile(path.join(dir, "db.lock"), "utf8")) as { pid: number };
      const port = await freePort();
      const second = await runNode(
        [path.resolve("bin/resc.js"), "dev", "changed.resource", "--port", String(port), "--data-dir", "db"],
        { cwd: dir, timeout: 60_000 },
      );
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`is in use by process ${holder.pid}`);
      expect(second.stderr).toMatch(/--data-dir/);
    });
    // Released at exit: the next start takes the directory.
    expect(existsSync(path.join(dir, "db.lock"))).toBe(false);
    await serving([], async (base) => expect((await fetch(`${base}/notes`)).status).toBe(200));
  });

  it("a stale lock (its process gone) is taken over", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((r) => gone.once("exit", r));
    await writeFile(
      path.join(dir, "db.lock"),
      JSON.stringify({ pid: gone.pid, command: "resc dev", since: new Date(0).toISOString() }),
    );
    await serving([], async (base) => expect((await fetch(`${base}/notes`)).status).toBe(200));
  });

  it("resc's migration history in the directory (npm start of a resc init project) is not part of the schema", async () => {
    await writeFile(path.join(dir, "schema.resource"), V1);
    const db = await openEmbeddedDatabase({
      dataDir: path.join(dir, "db"),
      ddl: "-- migrations: 0001_init.sql",
      migrate: async (x) => {
        await x.script(
          "CREATE TABLE IF NOT EXISTS resc_migrations (name text PRIMARY KEY, checksum text NOT NULL DEFAULT '', applied_at timestamptz NOT NULL DEFAULT now());" +
            "INSERT INTO resc_migrations (name) VALUES ('0001_init.sql') ON CONFLICT DO NOTHING;",
        );
      },
    });
    await db.executor.close();
    const out = await serving([], async (base) => {
      const page = (await (await fetch(`${base}/notes`)).json()) as { items: unknown[] };
      expect(page.items.length).toBeGreaterThan(0);
    });
    expect(out).toMatch(/the schema changed; the embedded database already matches it/);
    const again = await openEmbeddedDatabase({ dataDir: path.join(dir, "db"), ddl: "", migrate: async () => {} });
    try {
      const r = await again.executor.query({ text: "SELECT name FROM resc_migrations", values: [] });
      expect(r.rows).toEqual([{ name: "0001_init.sql" }]);
    } finally {
      await again.executor.close();
    }
  });
});
