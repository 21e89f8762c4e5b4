/**
 * The reference application as the README starts it: the real `npm start`
 * on its embedded database (a temporary data directory) answers a keyed
 * `POST /tasks`, and keeps answering afterwards, login included; a retry of
 * that POST with a fresh token of the same user replays it
 * (docs/decisions/1360-idempotency-scope.md). It runs `dist/` through
 * `resc/runtime`, so it needs the build `npm test` makes.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { issueToken } from "../../examples/tracker/auth/token.js";
import { DEVELOPMENT_JWT_SECRET } from "../../examples/tracker/config.js";
import { ACME, ADA } from "../tracker/setup.js";
import { within } from "./support.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const dataDir = mkdtempSync(path.join(tmpdir(), "resc-idem-start-"));
let child: ChildProcess | undefined;

/** Signals the process group npm leads (npm, node and the app). */
function stopGroup(signal: NodeJS.Signals): void {
  if (child?.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // the group is gone
  }
}

afterAll(() => {
  stopGroup("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs `npm start` and resolves with the URL it prints, once it serves. */
function npmStart(): Promise<string> {
  // The embedded database and the development secret, whatever the test run's environment names.
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: "0", TRACKER_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.TRACKER_JWT_SECRET;
  child = spawn("npm", ["start"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /serving .* at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child!.stdout?.on("data", onData);
    child!.stderr?.on("data", onData);
    child!.on("exit", (code) => reject(new Error(`npm start exited with ${code} before serving:\n${out}`)));
  });
}

describe("npm start and Idempotency-Key", () => {
  it("answers a keyed POST /tasks on the embedded database, keeps answering, and replays it across a fresh login", async () => {
    const url = await within(npmStart(), "npm start", 90_000);
    const login = async (): Promise<string> => {
      const r = await within(
        fetch(`${url}/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "ada@acme.test", password: "demo-password" }),
        }),
        "POST /auth/login",
      );
      expect(r.status).toBe(200);
      return ((await r.json()) as { token: string }).token;
    };
    const create = (token: string) =>
      within(
        fetch(`${url}/tasks`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            "idempotency-key": "start-1",
          },
          body: JSON.stringify({ list_id: 1, title: "Keyed from npm start", labels: [] }),
        }),
        "keyed POST /tasks",
      );
    const token = await login();
    const created = await create(token);
    const text = await created.text();
    expect(created.status, text).toBe(201);
    // The service still answers: a new sign-in, a read.
    const fresh = await login();
    const listed = await within(
      fetch(`${url}/tasks?title=eq.Keyed from npm start`, { headers: { authorization: `Bearer ${fresh}` } }),
      "GET /tasks",
    );
    expect(((await listed.json()) as { items: unknown[] }).items).toHaveLength(1);
    // A token of the same user issued at another second (as a sign-in after an outage would be).
    const later = await issueToken(
      { userId: ADA, orgId: ACME },
      DEVELOPMENT_JWT_SECRET,
      3600,
      Math.floor(Date.now() / 1000) - 30,
    );
    expect(later).not.toBe(token);
    const retried = await create(later);
    expect([retried.status, retried.headers.get("idempotent-replayed"), await retried.text()]).toEqual([
      201,
      "true",
      text,
    ]);
  }, 180_000);
});
