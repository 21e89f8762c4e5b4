/**
 * The generated command tree's `watch` gives up where a person would
 * (docs/decisions/1361-feed-positions-and-client-retries.md): run as a
 * separate process (Node with tsx) against a real HTTP server playing a
 * script, a refusal (400, 404) prints its problem on stderr and exits 1
 * after exactly one request; a failure (5xx, nothing listening) is told on
 * stderr with the wait before the next attempt, the waits grow, and once
 * the service answers, stdout has the changes as JSON lines; a stream the
 * service ends with `failed` (docs/decisions/1364-feed-isolation.md) ends
 * the watch as a refusal does.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { emitClient, emitCommandTree } from "../../compiler/index.js";
import { compileFile } from "../support/service.js";
import { problemBody, scriptedServer, type Scripted } from "../support/scripted-server.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
// Inside the repository, so the tree finds @oclif/core in node_modules.
const dir = mkdtempSync(path.join(ROOT, "test", ".generated-watch-"));
const MAIN = `import { buildCommandTree } from "./commands/index.js";\nawait buildCommandTree().execute();\n`;

beforeAll(async () => {
  const { schema } = await compileFile(path.join(ROOT, "spec.resource"));
  const files = [
    ...(await emitClient(schema, "client")),
    ...(await emitCommandTree(schema, "commands", { cliName: "tracker", clientDir: "client" })),
  ];
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    writeFileSync(path.join(dir, f.path), f.contents);
  }
  writeFileSync(path.join(dir, "main.ts"), MAIN);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

let server: Scripted | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The environment without any TRACKER_* variable, then `base` as the service's address. */
function env(base: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("TRACKER_")) out[k] = v;
  return { ...out, TRACKER_BASE_URL: base };
}

/** Runs `tracker tasks watch <args>` to its end; `extra` adds to its environment. */
function watch(
  base: string,
  args: string[] = [],
  extra: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(dir, "main.ts"), "tasks", "watch", ...args],
      { cwd: ROOT, env: { ...env(base), ...extra }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs `tracker tasks watch` until `done(stdout, stderr)` holds (then interrupts it, as Ctrl-C does), within 40 s. */
function watchUntil(
  base: string,
  done: (out: string, err: string) => boolean,
): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(dir, "main.ts"), "tasks", "watch"], {
    cwd: ROOT,
    env: env(base),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`watch printed ${JSON.stringify(out)} and on stderr ${JSON.stringify(err)}`));
    }, 40_000);
    const check = (): void => {
      if (!done(out, err)) return;
      clearTimeout(timer);
      child.kill("SIGINT");
      resolve({ stdout: out, stderr: err });
    };
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      check();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
      check();
    });
  });
}

/** The waits (seconds) and attempts the warnings of `stderr` name, in order. */
function warnings(stderr: string): { what: string; seconds: number; attempt: number }[] {
  return [...stderr.matchAll(/^Warning: (.*); retrying in (\d+\.\d) s \(attempt (\d+)\)$/gm)].map((m) => ({
    what: m[1]!,
    seconds: Number(m[2]),
    attempt: Number(m[3]),
  }));
}

describe("watch", () => {
  it.each([
    [400, "query.status"],
    [404, "path"],
  ])(
    "on a %i prints the problem on stderr and exits 1 after one request",
    async (status, at) => {
      server = await scriptedServer([{ status, body: problemBody(status, at, "refused") }]);
      const r = await watch(server.url);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`Error: refused (HTTP ${status})\n${at}: refused\n`);
      expect(r.code).toBe(1);
      expect(server.requests).toHaveLength(1);
    },
    60_000,
  );

  it.each([
    [401, "header.authorization"],
    [403, "request"],
  ])(
    "on a %i (access rules, docs/decisions/1367-access-rules.md) sends TRACKER_TOKEN, prints the problem and exits 1 after one request",
    async (status, at) => {
      server = await scriptedServer([{ status, body: problemBody(status, at, "refused") }]);
      const r = await watch(server.url, [], { TRACKER_TOKEN: "expired-token" });
      expect([r.code, r.stdout, r.stderr]).toEqual([1, "", `Error: refused (HTTP ${status})\n${at}: refused\n`]);
      expect(server.requests.map((q) => q.headers.authorization)).toEqual(["Bearer expired-token"]);
    },
    60_000,
  );

  it("on a 5xx says so on stderr and waits longer each time, then prints the changes once the service answers", async () => {
    server = await scriptedServer([
      { status: 500, body: problemBody(500, "server", "boom") },
      { status: 503, body: problemBody(503, "server", "stopping") },
      { stream: ["retry: 1000\nid: 9.3\n\n", 'id: 9.4\nevent: create\ndata: {"id":1,"title":"back"}\n\n'] },
    ]);
    const r = await watchUntil(server.url, (out) => out.includes("\n"));
    expect(r.stdout).toBe('{"id":"9.4","event":"create","data":{"id":1,"title":"back"}}\n');
    const w = warnings(r.stderr);
    expect(w.map((x) => [x.what, x.attempt])).toEqual([
      ["boom (HTTP 500)", 1],
      ["stopping (HTTP 503)", 2],
    ]);
    // One second doubling, up to half taken off at random: [0.5, 1] then [1, 2].
    expect(w[0]!.seconds).toBeGreaterThanOrEqual(0.5);
    expect(w[0]!.seconds).toBeLessThanOrEqual(1);
    expect(w[1]!.seconds).toBeGreaterThanOrEqual(w[0]!.seconds);
    expect(w[1]!.seconds).toBeLessThanOrEqual(2);
    expect(server.requests).toHaveLength(3);
  }, 60_000);

  it("on a failed event prints what came before, then the problem on stderr, and exits 1 without reconnecting", async () => {
    const failed = {
      type: "/problems/subscription-failed",
      title: "Unprocessable Content",
      status: 422,
      detail: "the filters cannot be judged",
      errors: [],
    };
    server = await scriptedServer([
      {
        stream: [
          "retry: 1000\nid: 9.3\n\n",
          'id: 9.4\nevent: create\ndata: {"id":1,"title":"before"}\n\n',
          `event: failed\ndata: ${JSON.stringify(failed)}\n\n`,
        ],
      },
    ]);
    const r = await watch(server.url);
    expect(r.stdout).toBe('{"id":"9.4","event":"create","data":{"id":1,"title":"before"}}\n');
    expect(r.stderr).toBe("Error: the filters cannot be judged (HTTP 422)\n");
    expect(r.code).toBe(1);
    expect(server.requests).toHaveLength(1);
  }, 60_000);

  it("says so when nothing listens, naming the address", async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await watchUntil(`http://127.0.0.1:${port}`, (_out, err) => warnings(err).length >= 2);
    const w = warnings(r.stderr);
    expect(w[0]!.what).toBe(`cannot reach http://127.0.0.1:${port}/tasks/events: ECONNREFUSED`);
    expect(w.slice(0, 2).map((x) => x.attempt)).toEqual([1, 2]);
    expect(r.stdout).toBe("");
  }, 60_000);
});
