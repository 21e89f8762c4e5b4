/**
 * The tracker's binary as shipped: examples/tracker/cli/main.ts over the
 * committed command tree (examples/tracker/generated/cli/), run as a
 * process against the reference application — first the service mounted
 * with trivial hooks, then the tracker app itself, whose bearer middleware
 * takes the token from POST /auth/login (spec: Authentication rules 2 and 5).
 */
import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracker as startTrackerApp, type Tracker } from "../tracker/setup.js";
import { startTracker, type RunningService } from "./service.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const MAIN = path.join(ROOT, "examples/tracker/cli/main.ts");

function tracker(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TRACKER_")) base[k] = v;
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("examples/tracker/cli/main.ts against the service", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startTracker();
  });
  afterAll(async () => {
    await svc?.stop();
  });

  it("is the tracker binary: its help and its commands", async () => {
    const help = await tracker(["--help"], {});
    expect(help.stdout).toMatch(/\$ tracker \[COMMAND\]/);
    expect(help.stdout).toMatch(/tracker\/1\.4\.0/);
    const r = await tracker(["tasks", "list", "--status", "doing", "--select", "title", "--compact"], { TRACKER_BASE_URL: svc.url });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).items).toEqual([{ id: 1, title: "Design the fuel pump" }]);
  });
});

describe("examples/tracker/cli/main.ts against the tracker app", () => {
  let app: Tracker;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    app = await startTrackerApp("cli");
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  });
  afterAll(async () => {
    await close?.();
    await app?.drop();
  });

  it("sends the token from TRACKER_TOKEN and sees the caller's tenant only", async () => {
    const token = await app.login("grace@globex.test");
    const r = await tracker(["tasks", "list", "--select", "title", "--compact"], { TRACKER_BASE_URL: url, TRACKER_TOKEN: token });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).items).toEqual([{ id: 6, title: "Taste the oolong" }]);
  });

  it("reports the app's refusal without a token on stderr, exiting non-zero", async () => {
    const r = await tracker(["tasks", "list"], { TRACKER_BASE_URL: url });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Error: .+ \(HTTP 401\)\n/);
  });
});
