/**
 * The README's quick start: the real `npm start` command serves the
 * tracker on its embedded database (a temporary data directory here),
 * signs in, lists, logs each request, stops cleanly on SIGTERM, and keeps
 * its rows across a restart. It runs `dist/` through `resc/runtime`, so it
 * needs the build `npm test` (or `npm ci`) makes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "resc-tracker-start-"));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) stopGroup(child, "SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Signals the whole process group `child` leads (npm, the shell, tsx and
 * the app): the group outlives npm if the app lingers, so this is tried
 * even after npm has exited.
 */
function stopGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

interface Running {
  url: string;
  output: () => string;
  /** Sends SIGINT to the group (as Ctrl-C does) and resolves once npm has exited. */
  stop: () => Promise<void>;
}

/** Runs `npm start` and resolves once it prints the URL it serves. */
function npmStart(env: Record<string, string>): Promise<Running> {
  const child = spawn("npm", ["start"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", TRACKER_DATA_DIR: dataDir, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr?.on("data", (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return new Promise((resolve, reject) => {
    const onData = (): void => {
      const m = /serving .* at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (!m) return;
      child.stdout?.off("data", onData);
      resolve({
        url: m[1],
        output: () => out,
        stop: async () => {
          stopGroup(child, "SIGINT");
          await closed;
        },
      });
    };
    child.stdout?.on("data", onData);
    exited.then((code) => reject(new Error(`npm start exited with ${code} before serving:\n${out}`)));
  });
}

describe("npm start", () => {
  it("is the command the README's quick start gives", () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } };
    // Node itself with tsx as a loader, not tsx's CLI: that CLI relays a Ctrl-C and kills the app with
    // SIGKILL when the app does not confirm within 60 ms, which a busy machine's embedded database exceeds.
    expect(pkg.scripts.start).toBe("node --import tsx examples/tracker/main.ts");
    expect(readFileSync(path.join(ROOT, "README.md"), "utf8")).toContain("npm ci && npm start");
  });

  it("serves the tracker on the embedded database, logs requests, stops on Ctrl-C, keeps rows", async () => {
    let app = await npmStart({});
    try {
      expect(app.output()).toContain("DEVELOPMENT secret");
      expect(app.output()).toContain("creating the embedded database");
      expect((await fetch(`${app.url}/tasks`)).status).toBe(401);
      const login = await fetch(`${app.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@acme.test", password: "demo-password" }),
      });
      expect(login.status).toBe(200);
      const { token } = (await login.json()) as { token: string };
      const auth = { authorization: `Bearer ${token}` };
      const tasks = await fetch(`${app.url}/tasks?status=eq.todo&sort=-created_at`, { headers: auth });
      expect(tasks.status).toBe(200);
      expect(((await tasks.json()) as { items: { title: string }[] }).items.map((t) => t.title)).toEqual([
        "Order titanium",
      ]);
      const created = await fetch(`${app.url}/lists`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ title: "Survives a restart", position: 7 }),
      });
      expect(created.status).toBe(201);
      expect(app.output()).toMatch(/^GET \/tasks\?status=eq\.todo&sort=-created_at 200 \d+ms$/m);
      expect(app.output()).toMatch(/^audit: list\.create \d+ by /m);
      await app.stop();
      // npm itself dies of the signal; the app reports that it closed the database first.
      expect(app.output()).toMatch(/^tracker: stopped$/m);

      app = await npmStart({ TRACKER_JWT_SECRET: "a-real-secret-for-this-test-run-0123456789" });
      expect(app.output()).toContain("reusing the embedded database");
      expect(app.output()).not.toContain("DEVELOPMENT secret");
      // The old token was signed with the development secret: refused now.
      expect((await fetch(`${app.url}/lists`, { headers: auth })).status).toBe(401);
      const again = await fetch(`${app.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@acme.test", password: "demo-password" }),
      });
      const fresh = ((await again.json()) as { token: string }).token;
      const lists = await fetch(`${app.url}/lists?search=restart`, { headers: { authorization: `Bearer ${fresh}` } });
      expect(((await lists.json()) as { items: { title: string }[] }).items.map((l) => l.title)).toEqual([
        "Survives a restart",
      ]);
      await app.stop();
      expect(app.output()).toMatch(/^tracker: stopped$/m);
    } finally {
      await app.stop();
    }
  }, 180_000);
});
