/**
 * `resc init` end to end from the packed package (docs/decisions/1242-init.md;
 * docs/decisions/1242-init.md): in an empty directory, the new project
 * installs, passes `npm test`, serves with `npm start`, and carries its
 * rows through a schema change (`migrate:diff`, then `npm start` again).
 * A directory that is not empty is refused.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
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

/** The resc a user has after `npm install ./resc-x.tgz` in a folder of their own. */
let tools = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "resc-init-"));
  const pack = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT, timeout: 180_000 });
  expect(pack.code, pack.stderr).toBe(0);
  const tarball = path.join(
    dir,
    (JSON.parse(pack.stdout.slice(pack.stdout.indexOf("["))) as { filename: string }[])[0].filename,
  );
  tools = path.join(dir, "tools");
  await mkdir(tools);
  await writeFile(path.join(tools, "package.json"), '{"private":true}');
  const tool = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], {
    cwd: tools,
    timeout: 300_000,
  });
  expect(tool.code, tool.stderr).toBe(0);
  project = path.join(dir, "notes");
  const init = await run(path.join(tools, "node_modules/.bin/resc"), ["init", project], { cwd: dir });
  expect(init.code, init.stderr).toBe(0);
  // The project depends on the very tarball the running resc came from: the printed steps work as they are.
  expect(init.stdout).toContain(`(file:${tarball})`);
  const pkg = JSON.parse(await readFile(path.join(project, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  expect(pkg.dependencies.resc).toBe(`file:${tarball}`);
  const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
    cwd: project,
    timeout: 300_000,
  });
  expect(install.code, install.stderr).toBe(0);
}, 900_000);

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("resc init", () => {
  it("makes a project whose npm test passes", async () => {
    const t = await run("npm", ["test"], { cwd: project, timeout: 180_000 });
    expect(t.code, t.stdout + t.stderr).toBe(0);
    expect(t.stdout).toMatch(/# pass 2/);
  });

  it("type-checks with the TypeScript it installs (7.x), builds its command-line client, and the binary talks to it", async () => {
    const version = await run("npx", ["tsc", "--version"], { cwd: project });
    expect(version.stdout).toMatch(/^Version 7\./);
    const check = await run("npm", ["run", "typecheck"], { cwd: project, timeout: 180_000 });
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const build = await run("npm", ["run", "build:cli"], { cwd: project, timeout: 180_000 });
    expect(build.code, build.stdout + build.stderr).toBe(0);
    const help = await run("npx", ["notes", "--help"], { cwd: project });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/notes/);
    await started(async (base) => {
      const created = await run("npx", ["notes", "notes", "create", "--title", "from the cli", "--base-url", base], {
        cwd: project,
      });
      expect(created.code, created.stderr).toBe(0);
      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200);
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
      const missing = await fetch(`${base}/nowhere`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toMatch(/application\/problem\+json/);
    });
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
      // "from the cli" was stored by the command-line client in the test before.
      expect(page.items.map((n) => n.title).sort()).toEqual(["from the cli", "kept"]);
      for (const n of page.items) expect(n).toMatchObject({ due_on: null });
    });
  });

  it("starts from a schema of the user's with --schema: two migrations later, npm test still passes", async () => {
    const own = path.join(dir, "shop.resource");
    await writeFile(
      own,
      'table products {\n  id    bigint @primary_key @default(identity)\n  title text   @filterable\n\n  resource "/products" { ops = [crud, list] }\n}\n',
    );
    const shop = path.join(dir, "shop");
    const init = await run(path.join(tools, "node_modules/.bin/resc"), ["init", shop, "--schema", own], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    expect(await readdir(path.join(shop, "migrations"))).toEqual(["0001_init.sql"]);
    expect(await readFile(path.join(shop, "migrations/0001_init.sql"), "utf8")).toMatch(/CREATE TABLE "products"/);
    expect(await readFile(path.join(shop, "README.md"), "utf8")).toContain("'http://127.0.0.1:3000/products");
    const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: shop,
      timeout: 300_000,
    });
    expect(install.code, install.stderr).toBe(0);
    for (const [column, name] of [
      ["  price integer?\n", "price"],
      ["  stock integer @default(0)\n", "stock"],
    ] as const) {
      const text = await readFile(path.join(shop, "schema.resource"), "utf8");
      await writeFile(
        path.join(shop, "schema.resource"),
        text.replace("  title text   @filterable\n", `  title text   @filterable\n${column}`),
      );
      const diff = await run("npm", ["run", "migrate:diff", "--", "--name", name], { cwd: shop, timeout: 120_000 });
      expect(diff.code, diff.stdout + diff.stderr).toBe(0);
    }
    expect(await readdir(path.join(shop, "migrations"))).toEqual(["0001_init.sql", "0002_price.sql", "0003_stock.sql"]);
    const t = await run("npm", ["test"], { cwd: shop, timeout: 180_000 });
    expect(t.code, t.stdout + t.stderr).toBe(0);
    expect(t.stdout).toMatch(/# pass 1/);
  });

  it("refuses a directory that is not empty", async () => {
    const r = await runNode([path.join(ROOT, "bin/resc.js"), "init", project], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
  });
});
