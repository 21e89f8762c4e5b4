/**
 * `resc serve` under load, stopped the way an orchestrator stops it
 * (docs/decisions/1252-graceful-drain.md; docs/deploy.md): request loops
 * run against one process and against `--workers 2`, with a connection per
 * request and with keep-alive agents, while a load-balancer stand-in polls
 * `/ready` and stops sending once it answers 503. SIGTERM comes mid-load:
 * not one request fails, every acknowledged write is stored, and the
 * process exits 0. Also: `/ready` says what is wrong in our words, a
 * worker that dies is started again, and `/metrics` counts the whole
 * cluster whichever worker answers the scrape.
 */
import http from "node:http";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withOperations } from "../../runtime/ops/index.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startServe } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
const db: TestDatabase = await createTestDatabase("drain");

beforeAll(async () => {
  if (db.kind !== "pg") return;
  await db.executor.script((await compileFile(FILE)).ddl);
});
afterAll(() => db.drop());

interface Outcome {
  ok: number;
  failed: string[];
  created: number;
}

/** One request with node:http; resolves with the status, or rejects with the socket error (ECONNRESET, ECONNREFUSED). */
function send(base: string, agent: http.Agent | false, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        method,
        agent,
        headers: {
          ...(body ? { "content-type": "application/json", "content-length": Buffer.byteLength(body) } : {}),
          ...(agent === false ? { connection: "close" } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * Runs `loops` request loops (reads and writes) until the load balancer stand-in sees `/ready` at 503, SIGTERMs
 * the server `signalAfterMs` in, and gathers what every request got.
 */
async function underLoad(
  base: string,
  agent: http.Agent | false,
  loops: number,
  signal: () => void,
  signalAfterMs: number,
): Promise<Outcome> {
  let inRotation = true;
  const outcome: Outcome = { ok: 0, failed: [], created: 0 };
  const poller = (async () => {
    while (inRotation) {
      await new Promise((r) => setTimeout(r, 100));
      const status = await send(base, false, "GET", "/ready").catch(() => 0);
      if (status !== 200) inRotation = false;
    }
  })();
  const loop = async (i: number): Promise<void> => {
    for (let n = 0; inRotation && n < 2000; n++) {
      const write = (n + i) % 3 === 0;
      try {
        const status = write
          ? await send(base, agent, "POST", "/pins", JSON.stringify({ label: `l${i}-${n}` }))
          : await send(base, agent, "GET", "/pins?sort=-id");
        if (status === (write ? 201 : 200)) {
          outcome.ok++;
          if (write) outcome.created++;
        } else outcome.failed.push(`HTTP ${status}`);
      } catch (e) {
        outcome.failed.push((e as NodeJS.ErrnoException).code ?? String(e));
      }
    }
  };
  const timer = setTimeout(signal, signalAfterMs);
  await Promise.all([poller, ...Array.from({ length: loops }, (_, i) => loop(i))]);
  clearTimeout(timer);
  return outcome;
}

async function pinCount(): Promise<number> {
  return Number((await db.executor.query({ text: "SELECT count(*)::text AS n FROM pins", values: [] })).rows[0]!.n);
}

describe.skipIf(db.kind !== "pg")("resc serve stopped under load", () => {
  const cases = [
    { name: "one process, a connection per request", workers: 1, keepAlive: false },
    { name: "one process, keep-alive agents", workers: 1, keepAlive: true },
    { name: "--workers 2, a connection per request", workers: 2, keepAlive: false },
    { name: "--workers 2, keep-alive agents", workers: 2, keepAlive: true },
  ];
  it.each(cases)("$name: no request fails and every acknowledged write is stored", async ({ workers, keepAlive }) => {
    const node = await startServe(FILE, [
      "--database-url",
      db.url!,
      "--drain-seconds",
      "2",
      "--workers",
      String(workers),
    ]);
    if (workers > 1) {
      // Both workers serve before the load starts.
      for (let i = 0; i < 300 && (node.output().match(/"msg":"serving/g) ?? []).length < workers; i++)
        await new Promise((r) => setTimeout(r, 50));
    }
    const agent = keepAlive ? new http.Agent({ keepAlive: true, maxSockets: 24 }) : false;
    const before = await pinCount();
    let exited: Promise<number | null> | undefined;
    try {
      const outcome = await underLoad(
        node.base,
        agent,
        24,
        () => {
          exited = new Promise((r) => node.child.once("exit", (code) => r(code)));
          node.child.kill("SIGTERM");
        },
        800,
      );
      expect(exited, "the signal was sent while the loops ran").toBeDefined();
      expect(outcome.failed).toEqual([]);
      expect(outcome.ok).toBeGreaterThan(50);
      expect(await exited).toBe(0);
      expect(await pinCount()).toBe(before + outcome.created);
      expect(node.output()).toMatch(/draining: \/ready answers 503/);
    } finally {
      if (agent) agent.destroy();
      if (node.child.exitCode === null) node.child.kill("SIGKILL");
    }
  });
});

describe.skipIf(db.kind !== "pg")("resc serve --workers 2, a worker and the metrics", () => {
  it("starts a worker again when one dies while serving, and says so in a JSON line", async () => {
    const node = await startServe(FILE, ["--database-url", db.url!, "--workers", "2"]);
    try {
      for (let i = 0; i < 300 && (node.output().match(/"msg":"serving/g) ?? []).length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      const pids = [...node.output().matchAll(/"pid":(\d+)[^\n]*"msg":"serving/g)].map((m) => Number(m[1]));
      expect(new Set(pids).size).toBe(2);
      process.kill(pids[0]!, "SIGKILL");
      for (let i = 0; i < 200 && (node.output().match(/"msg":"serving/g) ?? []).length < 3; i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(node.output()).toMatch(
        /"role":"primary"[^\n]*worker \d exited while serving; starting another in 1000 ms/,
      );
      expect((node.output().match(/"msg":"serving/g) ?? []).length).toBe(3);
      expect(node.child.exitCode).toBeNull();
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => fetch(`${node.base}/pins`).then((r) => r.status)),
      );
      expect(answers.every((s) => s === 200)).toBe(true);
    } finally {
      // The primary's and workers' lines say why, should it ever exit otherwise.
      expect(await node.stop(), node.output().slice(-4000)).toBe(0);
    }
  });

  it("answers /metrics with the whole cluster's counts, whichever worker takes the scrape", async () => {
    const node = await startServe(FILE, ["--database-url", db.url!, "--workers", "2"]);
    try {
      for (let i = 0; i < 300 && (node.output().match(/"msg":"serving/g) ?? []).length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      // A connection each: the primary hands connections to the workers in turn.
      for (let i = 0; i < 20; i++) await send(node.base, false, "GET", "/pins/0");
      const counts = new Set<string>();
      for (let i = 0; i < 6; i++) {
        const text = await (await fetch(`${node.base}/metrics`, { headers: { connection: "close" } })).text();
        const line = text
          .split("\n")
          .find((l) => l.startsWith("resc_http_requests_total{") && l.includes('route="/pins/:id"'));
        counts.add(line ?? "none");
      }
      expect([...counts]).toEqual(['resc_http_requests_total{method="GET",route="/pins/:id",status="404"} 20']);
    } finally {
      await node.stop();
    }
  });
});

describe("/ready in our words", () => {
  it("names the problem without the driver's text or the database's address, which go to the log", async () => {
    const logged: string[] = [];
    const { default: pino } = await import("pino");
    const logger = pino({ level: "info" }, { write: (line: string) => logged.push(line) });
    const app = new Hono();
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5499"), { code: "ECONNREFUSED" });
    withOperations(app, {
      logger,
      db: {
        query: () => Promise.reject(refused),
        script: () => Promise.reject(refused),
        transaction: () => Promise.reject(refused),
        close: async () => {},
      },
    });
    const r = await app.request("/ready");
    expect(r.status).toBe(503);
    const body = await r.text();
    expect(JSON.parse(body)).toEqual({ status: "not ready", problems: ["database: the database cannot be reached"] });
    expect(body).not.toMatch(/ECONNREFUSED|5499/);
    expect(logged.join("")).toMatch(/ECONNREFUSED 127\.0\.0\.1:5499/);
  });

  it("answers 503 draining at once after drain(), and closes each keep-alive connection after its response", async () => {
    const app = new Hono();
    const ops = withOperations(app, {
      logRequests: false,
      db: {
        query: async () => ({ rows: [], rowCount: 0 }),
        script: async () => {},
        transaction: async (fn) => fn(undefined!),
        close: async () => {},
      },
    });
    app.get("/x", (c) => c.text("x"));
    expect((await app.request("/ready")).status).toBe(200);
    expect((await app.request("/x")).headers.get("connection")).toBeNull();
    ops.drain();
    const ready = await app.request("/ready");
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "draining", problems: ["the service is shutting down"] });
    const x = await app.request("/x");
    expect(x.status).toBe(200);
    expect(x.headers.get("connection")).toBe("close");
  });
});
