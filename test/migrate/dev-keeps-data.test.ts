/**
 * `resc dev` keeps the rows of its embedded database when the schema
 * changes (issue #11 §4; docs/decisions/1241-dev-keeps-data.md): an added
 * column is migrated in place; a change that loses data stops the start,
 * naming it and the flags, until `--accept-data-loss`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode } from "../support/run.js";
import { freePort } from "../support/ports.js";

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
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.resolve("bin/resc.js"), "dev", "schema.resource", "--port", String(port), "--data-dir", "db", ...extra],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  child.stdout.on("data", (d) => (out += String(d)));
  child.stderr.on("data", (d) => (out += String(d)));
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}: ${out}`)));
      child.stdout.on("data", () => out.includes("serving") && resolve());
    });
    await fn(`http://127.0.0.1:${port}`);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
  return out;
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
});
