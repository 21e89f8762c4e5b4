/**
 * `resc init` end to end from the packed package (docs/decisions/1242-init.md;
 * docs/decisions/1242-init.md): in an empty directory, the new project
 * installs, passes `npm test`, serves with `npm start`, and carries its
 * rows through a schema change (`migrate:diff`, then `npm start` again).
 * A directory that is not empty is refused.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runNode } from "../support/run.js";
import { freePort } from "../support/ports.js";
import { collected, printed } from "../support/serve-process.js";

const ROOT = path.resolve(".");
let dir = "";
let project = "";

/** `npm start` in `cwd` (default the notes project) on a free port; runs `fn` once it serves, then stops it. */
async function started(fn: (base: string) => Promise<void>, cwd = project): Promise<void> {
  const port = await freePort();
  const child = spawn("npm", ["start"], {
    cwd,
    env: { ...process.env, PORT: String(port), DATABASE_URL: "" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const out = collected(child);
  try {
    await printed(child, out, "serving on", "npm start", 90_000);
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
    // As docs/lifecycle.md has it: `resc dev` serves the edited schema first (its own embedded database), then
    // the migration is written; the app's database is not the one `resc dev` migrated without a history.
    const port = await freePort();
    const dev = spawn(
      path.join(project, "node_modules/.bin/resc"),
      ["dev", "schema.resource", "--port", String(port)],
      {
        cwd: project,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const devOut = collected(dev);
    const devExited = new Promise((r) => dev.once("exit", r));
    try {
      await printed(dev, devOut, "serving", "resc dev", 90_000);
      expect((await fetch(`http://127.0.0.1:${port}/notes`)).status).toBe(200);
    } finally {
      dev.kill("SIGTERM");
      await devExited;
    }
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

  it("--schema on a schema requiring hooks: npm start serves, each missing hook answers 501 naming itself, webhooks are delivered", async () => {
    // A stranger's schema: bigint keys, an enum, a @@scoped table with a @stamped column, an action, a feed.
    const own = path.join(dir, "desk.resource");
    await writeFile(
      own,
      [
        "enum priority {\n  low\n  high\n}\n",
        "table tickets {",
        "  id       bigint   @primary_key @default(identity)",
        "  title    text     @filterable",
        '  priority priority @default("low")\n',
        '  resource "/tickets" {',
        "    ops    = [crud, list]",
        "    events = true\n",
        "    action close {\n      reason text\n    }\n  }\n}\n",
        "table secrets {",
        "  id       bigint @primary_key @default(identity)",
        "  owner_id bigint @stamped\n",
        "  @@scoped\n",
        '  resource "/secrets" { ops = [crud, list] }\n}\n',
      ].join("\n"),
    );
    const desk = path.join(dir, "desk");
    const init = await run(path.join(tools, "node_modules/.bin/resc"), ["init", desk, "--schema", own], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    const hooksFile = await readFile(path.join(desk, "hooks.ts"), "utf8");
    // The module names what is left to write.
    for (const hook of ["hooks.beforeQuery.secrets", "hooks.beforeCreate.secrets", "hooks.actions.tickets.close"])
      expect(hooksFile).toContain(`\`${hook}\``);
    // A receiver for the webhook the user adds to the exported list.
    const received: { headers: Record<string, unknown>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += String(d)));
      req.on("end", () => {
        received.push({ headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
    const secret = "whsec_" + Buffer.from("a webhook secret of 32 bytes....").toString("base64");
    const subscription = `[{ name: "tickets", table: "tickets", url: ${JSON.stringify(url)}, secret: ${JSON.stringify(secret)} }]`;
    expect(hooksFile).toContain("export const webhooks: WebhookSubscription[] = [];");
    await writeFile(
      path.join(desk, "hooks.ts"),
      hooksFile.replace(
        "export const webhooks: WebhookSubscription[] = [];",
        `export const webhooks: WebhookSubscription[] = ${subscription};`,
      ),
    );
    try {
      const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
        cwd: desk,
        timeout: 300_000,
      });
      expect(install.code, install.stderr).toBe(0);
      const t = await run("npm", ["test"], { cwd: desk, timeout: 180_000 });
      expect(t.code, t.stdout + t.stderr).toBe(0);
      const check = await run("npm", ["run", "typecheck"], { cwd: desk, timeout: 180_000 });
      expect(check.code, check.stdout + check.stderr).toBe(0);
      await started(async (base) => {
        const post = (p: string, body: unknown) =>
          fetch(base + p, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
          });
        const created = await post("/tickets", { title: "printer on fire", priority: "high" });
        expect(created.status).toBe(201);
        const { id } = (await created.json()) as { id: number };
        for (const [answer, hook] of [
          [await post(`/tickets/${id}/close`, { reason: "out" }), "hooks.actions.tickets.close"],
          [await fetch(`${base}/secrets`), "hooks.beforeQuery.secrets"],
          [await post("/secrets", {}), "hooks.beforeCreate.secrets"],
        ] as const) {
          expect(answer.status).toBe(501);
          expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
          const p = (await answer.json()) as { type: string; detail: string };
          expect(p.type).toBe("/problems/not-implemented");
          expect(p.detail).toContain(hook);
        }
        // Delivered by app.ts, signed: poll (bounded) for the POST.
        for (let i = 0; i < 300 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
        expect(received.length).toBeGreaterThan(0);
        expect(received[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
        expect((JSON.parse(received[0]!.body) as { type: string }).type).toMatch(/\.create$/);
        expect(received[0]!.body).toContain("printer on fire");
      }, desk);
    } finally {
      receiver.close();
    }
  }, 300_000); // npm install, a type check and a server start, on a machine shared with the rest of the suite

  it("refuses a directory that is not empty", async () => {
    const r = await runNode([path.join(ROOT, "bin/resc.js"), "init", project], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty/);
  });
});
