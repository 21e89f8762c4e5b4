/**
 * `resc init` end to end from the packed package (issue #11 §1;
 * docs/decisions/1242-init.md): in an empty directory, the new project
 * installs, passes `npm test`, serves with `npm start`, and carries its
 * rows through a schema change (`migrate:diff`, then `npm start` again).
 * A directory that is not empty is refused.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runNode } from "../support/run.js";
import { freePort } from "../support/ports.js";

const ROOT = path.resolve(".");
let dir = "";
let project = "";

/** `npm start` on a free port; runs `fn` once it serves, then stops it. */
async function started(fn: (base: string) => Promise<void>): Promise<void> {
  const port = await freePort();
  const child = spawn("npm", ["start"], {
    cwd: project,
    env: { ...process.env, PORT: String(port), DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += String(d)));
  child.stderr!.on("data", (d) => (out += String(d)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not serve: ${out}`)), 90_000);
      child.once("exit", (code) => reject(new Error(`npm start exited with ${code}: ${out}`)));
      child.stdout!.on("data", () => {
        if (out.includes("serving on")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await fn(`http://127.0.0.1:${port}`);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-init-"));
  const pack = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, timeout: 180_000 });
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = path.join(
    dir,
    (JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as { filename: string }[])[0].filename,
  );
  project = path.join(dir, "notes");
  const init = await runNode([path.join(ROOT, "bin/resc.js"), "init", project], { cwd: dir });
  expect(init.code, init.stderr).toBe(0);
  // The published version is not on the registry from here: point the dependency at the packed tarball.
  const pkg = JSON.parse(await readFile(path.join(project, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  pkg.dependencies.resc = `file:${tarball}`;
  await writeFile(path.join(project, "package.json"), JSON.stringify(pkg, null, 2));
  const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: project,
    timeout: 300_000,
  });
  expect(install.code, install.stderr).toBe(0);
}, 600_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("resc init", () => {
  it("makes a project whose npm test passes", async () => {
    const t = await run("npm", ["test"], { cwd: project, timeout: 180_000 });
    expect(t.code, t.stdout + t.stderr).toBe(0);
    expect(t.stdout).toMatch(/# pass 1/);
  });

  it("serves with npm start, and keeps its rows through a schema change", async () => {
    await started(async (base) => {
      const created = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"title":"kept"}',
      });
      expect(created.status).toBe(201);
    });
    const schema = await readFile(path.join(project, "schema.resource"), "utf8");
    await writeFile(
      path.join(project, "schema.resource"),
      schema.replace("  done       boolean", "  due_on     date?\n  done       boolean"),
    );
    const diff = await run("npm", ["run", "migrate:diff", "--", "--name", "due dates"], {
      cwd: project,
      timeout: 120_000,
    });
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);
    expect(diff.stdout).toContain("0002_due_dates.sql");
    await started(async (base) => {
      const page = (await (await fetch(`${base}/notes`)).json()) as { items: Record<string, unknown>[] };
      expect(page.items).toHaveLength(1);
      expect(page.items[0]).toMatchObject({ title: "kept", due_on: null });
    });
  });

  it("refuses a directory that is not empty", async () => {
    const r = await runNode([path.join(ROOT, "bin/resc.js"), "init", project], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
  });
});
