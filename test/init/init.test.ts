/**
 * `resc init` end to end from the packed package (docs/decisions/1242-init.md;
 * docs/decisions/1242-init.md): in an empty directory, the new project
 * installs, passes `npm test`, serves with `npm start`, and carries its
 * rows through a schema change (`migrate:diff`, then `npm start` again).
 * Authentication is on (docs/decisions/1367-access-rules.md): a request
 * without a token is a 401, one with `npm run token`'s development token is
 * answered, verified with the development secret `npm start` keeps in
 * `.resc/jwt-secret`. A directory that is not empty is refused.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, runNode } from "../support/run.js";
import { freePort } from "../support/ports.js";
import { collected, printed } from "../support/serve-process.js";

const ROOT = path.resolve(".");
let dir = "";
let project = "";

/**
 * `npm start` in `cwd` (default the notes project) on a free port; runs `fn` once it serves (with what it printed
 * so far), then stops it.
 */
async function started(fn: (base: string, output: string) => Promise<void>, cwd = project): Promise<void> {
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
    await fn(`http://127.0.0.1:${port}`, out.text);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    process.kill(-child.pid!, "SIGTERM");
    await exited;
  }
}

/** A development token for `sub`, as the README has it: `npm run -s token -- --sub alice`. */
async function token(sub: string, cwd = project): Promise<string> {
  const t = await run("npm", ["run", "-s", "token", "--", "--sub", sub], { cwd });
  expect(t.code, t.stderr).toBe(0);
  expect(t.stdout.trim()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  return t.stdout.trim();
}

/** The `Authorization` header of {@link token}. */
async function bearer(sub: string): Promise<{ authorization: string }> {
  return { authorization: `Bearer ${await token(sub)}` };
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
  // The printed steps mint a token and send it.
  expect(init.stdout).toContain("TOKEN=$(npm run -s token -- --sub alice)");
  expect(init.stdout).toContain('curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/notes');
  // The secret's variable is the project's; the README shows the token's round trip.
  expect(await readFile(path.join(project, "schema.resource"), "utf8")).toContain('secret_env = "NOTES_JWT_SECRET"');
  const readme = await readFile(path.join(project, "README.md"), "utf8");
  for (const line of [
    "TOKEN=$(npm run -s token -- --sub alice)",
    'curl -H "Authorization: Bearer $TOKEN" http://127.0.0.1:3000/notes',
    "export NOTES_TOKEN=$(npm run -s token -- --sub alice)",
  ])
    expect(readme).toContain(line);
  expect(readme).not.toMatch(/<!--|SECRET_ENV|TOKEN_ENV/);
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
  }, 240_000); // two embedded databases made, and three development tokens minted with resc token

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
      // Without a token the command is refused; with --token, or NOTES_TOKEN, it is answered.
      const refused = await run("npx", ["notes", "notes", "list", "--base-url", base], { cwd: project });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/HTTP 401/);
      const created = await run(
        "npx",
        ["notes", "notes", "create", "--title", "from the cli", "--base-url", base, "--token", await token("alice")],
        { cwd: project },
      );
      expect(created.code, created.stderr).toBe(0);
      const listed = await run("npx", ["notes", "notes", "list", "--base-url", base], {
        cwd: project,
        env: { NOTES_TOKEN: await token("alice") },
      });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain("from the cli");
      const docs = await fetch(`${base}/docs`);
      expect(docs.status).toBe(200);
      expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
      const missing = await fetch(`${base}/nowhere`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toMatch(/application\/problem\+json/);
    });
  }, 300_000); // a type check, a build, a server start and the binary run four times

  it("serves with npm start: no token is a 401, npm run token's is answered, each caller sees their own notes", async () => {
    await started(async (base, output) => {
      expect(output).toContain(
        "NOTES_JWT_SECRET is not set: tokens are verified with the development secret in .resc/jwt-secret",
      );
      const anonymous = await fetch(`${base}/notes`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer realm="Notes"/);
      expect(anonymous.headers.get("content-type")).toMatch(/application\/problem\+json/);
      const alice = await bearer("alice");
      const created = await fetch(`${base}/notes`, {
        method: "POST",
        headers: { ...alice, "content-type": "application/json" },
        body: '{"title":"kept"}',
      });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ owner: "alice", title: "kept" });
      const mine = await fetch(`${base}/notes`, { headers: alice });
      expect(mine.status).toBe(200);
      expect(((await mine.json()) as { items: { title: string }[] }).items.map((n) => n.title)).toContain("kept");
      const bobs = await fetch(`${base}/notes`, { headers: await bearer("bob") });
      expect(bobs.status).toBe(200);
      expect(((await bobs.json()) as { items: unknown[] }).items).toEqual([]);
      // A token not signed with the development secret is refused.
      const forged = await fetch(`${base}/notes`, {
        headers: { authorization: `${alice.authorization.slice(0, -4)}AAAA` },
      });
      expect(forged.status).toBe(401);
    });
    // The development secret npm start verifies with: made at random, the owner's only, announced at start.
    expect((await stat(path.join(project, ".resc/jwt-secret"))).mode & 0o777).toBe(0o600);
  });

  it("keeps its rows through a schema change", async () => {
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
      // resc dev verifies with the same development secret: npm run token's tokens work for both.
      expect((await fetch(`http://127.0.0.1:${port}/notes`)).status).toBe(401);
      expect((await fetch(`http://127.0.0.1:${port}/notes`, { headers: await bearer("alice") })).status).toBe(200);
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
      const page = (await (await fetch(`${base}/notes`, { headers: await bearer("alice") })).json()) as {
        items: Record<string, unknown>[];
      };
      // Alice's, stored by the two tests before: "from the cli" by the command-line client, "kept" by fetch.
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
  }, 300_000); // npm install, two migrations and npm test: over a minute on a shared machine

  it("--schema requiring a uuid claim and a role, with an anonymous role: the printed token command mints a token that lists, npm test lists with it", async () => {
    const own = path.join(dir, "club.resource");
    await writeFile(
      own,
      [
        "auth {",
        '  jwt {\n    algorithms = [HS256]\n    secret_env = "CLUB_JWT_SECRET"\n  }',
        "  roles     = [member]",
        "  anonymous = visitor",
        "  claim org uuid",
        "}\n",
        "table events {",
        "  id     bigint @primary_key @default(identity)",
        "  org_id uuid   @read_only",
        "  title  text\n",
        '  resource "/events" { ops = [crud, list] }\n',
        "  access member {\n    ops = [all]\n    rows org_id = claim.org\n    stamp org_id = claim.org\n  }",
        "}\n",
        "table notices {",
        "  id   bigint @primary_key @default(identity)",
        "  body text\n",
        '  resource "/notices" { ops = [reads] }\n',
        "  access visitor { ops = [reads] }",
        "  access member { ops = [reads] }",
        "}\n",
      ].join("\n"),
    );
    const club = path.join(dir, "club");
    const init = await run(path.join(tools, "node_modules/.bin/resc"), ["init", club, "--schema", own], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
    // No default_role: a role; a required uuid claim: an example uuid. Without them resc token mints nothing.
    const command = "npm run -s token -- --sub alice --role member --claim org=3f0c9d52-5b7e-4a59-8c1e-2c3b4d5e6f70";
    const printed = /^ {2}TOKEN=\$\((.*)\) {4}# in another terminal/m.exec(init.stdout)?.[1];
    expect(printed).toBe(command);
    const readme = await readFile(path.join(club, "README.md"), "utf8");
    expect(readme).toContain(`TOKEN=$(${command})\n`);
    expect(readme).toContain(`export CLUB_TOKEN=$(${command})\n`);
    // A request without a token is the anonymous role's: no "answered 401" for every request.
    expect(readme).toContain("one without is served as the role `visitor`");
    expect(readme).not.toContain("a request without one is answered 401");
    const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], {
      cwd: club,
      timeout: 300_000,
    });
    expect(install.code, install.stderr).toBe(0);
    // The smoke test mints with the same role and claim, and lists /events with it (a 200), /events without (401).
    const t = await run("npm", ["test"], { cwd: club, timeout: 180_000 });
    expect(t.code, t.stdout + t.stderr).toBe(0);
    expect(t.stdout).toMatch(/# pass 1/);
    await started(async (base, output) => {
      expect(output).toContain(
        `tokens are verified with the development secret in .resc/jwt-secret (${command} prints one)`,
      );
      // The printed command, as a shell runs it.
      const minted = await run("sh", ["-c", printed!], { cwd: club });
      expect(minted.code, minted.stderr).toBe(0);
      const authorization = `Bearer ${minted.stdout.trim()}`;
      expect(authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
      const listed = await fetch(`${base}/events`, { headers: { authorization } });
      expect(listed.status).toBe(200);
      // The visitor may read the notices, not the events: a 401 with the bearer challenge there.
      expect((await fetch(`${base}/notices`)).status).toBe(200);
      const anonymous = await fetch(`${base}/events`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer /);
    }, club);
  }, 300_000); // npm install, npm test and a server start

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
