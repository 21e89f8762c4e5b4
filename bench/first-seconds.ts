/**
 * `npm run bench:first-seconds`: the latency of a freshly started resc
 * server against its steady state (docs/decisions/0912-fault-log.md). A server is started on a
 * Pagila database and loaded at once with the four scenarios of
 * `bench/run.ts` and a `POST /actors` (every connection cycling through them): ten one-second
 * windows right after it says it listens, then `--settle` seconds of
 * load, then ten more windows of steady state. Prints p50, p99 and the
 * slowest request of each window and the two totals, as Markdown (also
 * written to `--out FILE`).
 *
 * Options: `--connections 10 --settle 30`, `--server dev` (see startDev), `--database-url URL` (a loaded
 * Pagila; not dropped).
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createBenchDatabase } from "./database.js";
import { SCENARIOS } from "./scenarios.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { PAGILA_SCHEMA, buildServers, startServer } from "./servers.js";

const { values: opts } = parseArgs({
  options: {
    connections: { type: "string", default: "10" },
    settle: { type: "string", default: "30" },
    out: { type: "string" },
    "database-url": { type: "string" },
    server: { type: "string", default: "bench" },
  },
});

/**
 * `--server dev` measures `resc dev --database-url` as a user starts it
 * (its per-request log line included, read through a pipe); the default
 * measures the bench's resc server (bench/resc-server.ts).
 */
async function startDev(databaseUrl: string): Promise<{ base: string; stop(): Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    process.execPath,
    [
      "bin/resc.js",
      "dev",
      PAGILA_SCHEMA,
      "--hooks",
      "fixtures/pagila/hooks.ts",
      "--database-url",
      databaseUrl,
      "--port",
      String(port),
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`resc dev exited with ${code}`)));
    child.stdout!.on("data", (d: Buffer) => {
      if (String(d).includes("serving")) resolve();
    });
  });
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

interface Window {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

/** One autocannon run of `seconds` over `paths`, each connection cycling through them. */
async function window(base: string, paths: string[], seconds: number): Promise<Window> {
  const r = await autocannon({
    url: base,
    connections: Number(opts.connections),
    duration: seconds,
    requests: [
      ...paths.map((path) => ({ method: "GET" as const, path })),
      // A write in every cycle: the load had writers as well as readers.
      {
        method: "POST" as const,
        path: "/actors",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ first_name: "BENCH", last_name: "WRITER" }),
      },
    ],
  });
  return {
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}

async function windows(base: string, paths: string[], n: number): Promise<Window[]> {
  const out: Window[] = [];
  for (let i = 0; i < n; i++) out.push(await window(base, paths, 1));
  return out;
}

/** Requests-weighted summary of several windows (p99 as the worst window's, max as the slowest request). */
function total(ws: Window[]): Window {
  return {
    requests: ws.reduce((s, w) => s + w.requests, 0),
    p50: Math.max(...ws.map((w) => w.p50)),
    p99: Math.max(...ws.map((w) => w.p99)),
    max: Math.max(...ws.map((w) => w.max)),
    failures: ws.reduce((s, w) => s + w.failures, 0),
  };
}

const row = (label: string, w: Window): string =>
  `| ${label} | ${w.requests} | ${w.p50} | ${w.p99} | ${w.max} | ${w.failures} |`;

const owned = opts["database-url"] ? undefined : await createBenchDatabase();
const url = opts["database-url"] ?? owned!.url;
try {
  const server =
    opts.server === "dev"
      ? await startDev(url)
      : await buildServers().then(() => startServer("resc", { databaseUrl: url }));
  try {
    // Paths are worked out by a separate process-free step: the keyset scenario asks for a cursor first.
    const paths = await Promise.all(SCENARIOS.map((s) => s.path(server.base)));
    const first = await windows(server.base, paths, 10);
    await window(server.base, paths, Number(opts.settle));
    const steady = await windows(server.base, paths, 10);
    const lines = [
      `First seconds of a fresh resc server against steady state (${opts.connections} connections, ` +
        `the four scenarios of bench/run.ts and a POST /actors in turn; latencies in ms).`,
      "",
      "| window | requests | p50 | p99 | max | failures |",
      "|---|---|---|---|---|---|",
      ...first.map((w, i) => row(`second ${i + 1}`, w)),
      row("**first 10 s**", total(first)),
      row(`**steady (after ${10 + Number(opts.settle)} s)**`, total(steady)),
    ];
    const report = lines.join("\n") + "\n";
    process.stdout.write(report);
    if (opts.out) await writeFile(opts.out, report);
  } finally {
    await server.stop();
  }
} finally {
  await owned?.drop();
}
