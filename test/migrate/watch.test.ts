/**
 * `resc dev --watch` (docs/decisions/1241-dev-keeps-data.md): a saved schema is recompiled, the
 * embedded database migrated with its rows, and the routes swapped on the
 * same port; a schema with an error is reported and the last good one kept
 * serving.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../support/ports.js";

const V1 = `table notes {
  id   bigint @primary_key @default(identity)
  body text

  resource "/notes" { ops = [crud, list] }
}
`;
const V2 = `${V1}
table tags {
  id    bigint @primary_key @default(identity)
  label text

  resource "/tags" { ops = [crud, list] }
}
`;

let dir = "";
let child: ChildProcess;
let base = "";
let out = "";

/** Polls `fn` every 50 ms until it returns true, for at most `ms`. */
async function until(fn: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out; resc printed:\n${out}`);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-watch-"));
  await writeFile(path.join(dir, "schema.resource"), V1);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(
    process.execPath,
    [path.resolve("bin/resc.js"), "dev", "schema.resource", "--watch", "--port", String(port), "--data-dir", "db"],
    {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  await until(async () => out.includes("serving"));
});

afterAll(async () => {
  child?.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
});

describe("resc dev --watch", () => {
  it("serves a new resource after a save, on the same port, keeping the rows", async () => {
    const created = await fetch(`${base}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"body":"kept"}',
    });
    expect(created.status).toBe(201);
    expect((await fetch(`${base}/tags`)).status).toBe(404);
    await writeFile(path.join(dir, "schema.resource"), V2);
    await until(async () => (await fetch(`${base}/tags`)).status === 200);
    expect(out).toMatch(/reloaded schema\.resource in \d+ ms/);
    const notes = (await (await fetch(`${base}/notes`)).json()) as { items: unknown[] };
    expect(notes.items).toEqual([{ id: 1, body: "kept" }]);
  });

  it("keeps serving the last good schema when the saved one has an error", async () => {
    await writeFile(path.join(dir, "schema.resource"), V2.replace("label text", "label text @sortabel"));
    await until(async () => out.includes("still serving the last good schema"));
    expect(out).toMatch(/Unknown attribute "@sortabel"/);
    expect((await fetch(`${base}/tags`)).status).toBe(200);
    expect(child.exitCode).toBeNull();
  });
});
