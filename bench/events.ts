/**
 * `npm run bench:events`: the change feed under load (docs/decisions/1337-change-feed.md).
 * One `resc serve` process over a fresh database; 10,000 idle subscribers
 * (a filter nothing matches) and 1,000 active ones, each with its own
 * filter (`bucket` in a window of 10 of 1,000 buckets, so a write matches
 * about ten of them); a writer commits single-row inserts at a fixed rate
 * (`--rate`, default 200/s, for `--duration` seconds, default 20). Reports
 * the latency from the writer's acknowledged COMMIT to the event's arrival
 * (p50, p99, max; one clock, this process), deliveries per second and how
 * many were missing, the server's and PostgreSQL's CPU per delivery, and
 * the server's resident memory per idle subscriber. Both the subscribers
 * and the writer run in this process, beside the server on the same machine.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createParser } from "eventsource-parser";
import pg from "pg";
import { compileText } from "../test/support/service.js";
import { createTestDatabase } from "../test/support/db.js";
import { cpuBetween, markCpu } from "./cpu.js";
import { startRescServe } from "./servers.js";

const { values: opts } = parseArgs({
  options: {
    rate: { type: "string", default: "200" },
    duration: { type: "string", default: "20" },
    active: { type: "string", default: "1000" },
    idle: { type: "string", default: "10000" },
  },
});
const RATE = Number(opts.rate);
const DURATION = Number(opts.duration);
const ACTIVE = Number(opts.active);
const IDLE = Number(opts.idle);
const WINDOW = 10;
const BUCKETS = 1000;

const SCHEMA = `
table ticks {
  id     bigint @primary_key @default(identity)
  bucket int    @filterable
  seq    bigint @filterable
  resource "/ticks" { ops = [list, read], events = true }
}
`;

/** Resident memory of `pid` in bytes (Linux `/proc`). */
function rss(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : NaN;
}

/** `resc serve FILE` on `url`, quiet, stopping at once on SIGTERM; `RESC_BENCH_PROFILE=DIR` writes a V8 CPU profile of it there. */
function startServe(file: string, url: string): Promise<{ base: string; child: ChildProcess }> {
  const profile = process.env.RESC_BENCH_PROFILE;
  return startRescServe(
    [file, "--database-url", url, "--log-level", "silent", "--drain-seconds", "0"],
    profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [],
  );
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

/** Opens one stream; `onEvent` gets each message's data. Resolves once the answer's headers came. */
function subscribe(url: string, onEvent?: (data: string) => void): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`${url}: ${res.statusCode}`));
      if (onEvent) {
        const parser = createParser({ onEvent: (m) => onEvent(m.data) });
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => parser.feed(chunk));
      } else res.resume();
      resolve(req);
    });
    req.on("error", reject);
  });
}

const pct = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const db = await createTestDatabase("bench_events");
if (db.kind !== "pg" || !db.url) throw new Error("the benchmark needs a PostgreSQL server");
const dir = mkdtempSync(path.join(tmpdir(), "resc-bench-events-"));
const file = path.join(dir, "ticks.resource");
writeFileSync(file, SCHEMA);
await db.executor.script(compileText(SCHEMA).ddl);
const server = await startServe(file, db.url);
const pid = server.child.pid!;
const requests: http.ClientRequest[] = [];
try {
  const base = rss(pid);
  for (let i = 0; i < IDLE; i += 500)
    requests.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(500, IDLE - i) }, () => subscribe(`${server.base}/ticks/events?bucket=eq.-1`)),
      )),
    );
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rss(pid);

  const acked = new Map<number, number>();
  const latencies: number[] = [];
  let received = 0;
  const onEvent = (data: string): void => {
    const now = performance.now();
    const seq = Number(/"seq":(\d+)/.exec(data)?.[1]);
    received++;
    const at = acked.get(seq);
    if (at !== undefined) latencies.push(now - at);
  };
  for (let i = 0; i < ACTIVE; i += 250)
    requests.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(250, ACTIVE - i) }, (_, j) => {
          const lo = ((i + j) * BUCKETS) / ACTIVE;
          return subscribe(`${server.base}/ticks/events?bucket=gte.${lo}&bucket=lt.${lo + WINDOW}`, onEvent);
        }),
      )),
    );
  await new Promise((r) => setTimeout(r, 2000));
  const loaded = rss(pid);

  const writer = new pg.Client({ connectionString: db.url });
  await writer.connect();
  const dbName = new URL(db.url).pathname.slice(1);
  let expected = 0;
  const before = markCpu(pid, dbName);
  const started = performance.now();
  const writes = RATE * DURATION;
  for (let seq = 1; seq <= writes; seq++) {
    const due = started + (seq * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const bucket = Math.floor(Math.random() * BUCKETS);
    // Subscribers whose window [lo, lo + 10) holds the bucket.
    for (let s = 0; s < ACTIVE; s++) {
      const lo = (s * BUCKETS) / ACTIVE;
      if (bucket >= lo && bucket < lo + WINDOW) expected++;
    }
    await writer.query("INSERT INTO ticks (bucket, seq) VALUES ($1, $2)", [bucket, seq]);
    acked.set(seq, performance.now());
  }
  const elapsed = (performance.now() - started) / 1000;
  // Let the last events arrive.
  for (let i = 0; i < 100 && received < expected; i++) await new Promise((r) => setTimeout(r, 100));
  const after = markCpu(pid, dbName);
  await writer.end();
  const cpu = cpuBetween(before, after);
  latencies.sort((a, b) => a - b);
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(0);
  const rows = [
    `| writes/s (achieved) | ${(writes / elapsed).toFixed(0)} |`,
    `| active subscribers (distinct filters) / idle | ${ACTIVE} / ${IDLE} |`,
    `| deliveries | ${received} of ${expected} expected (${(received / elapsed).toFixed(0)}/s) |`,
    `| commit → delivery p50 / p99 / max | ${pct(latencies, 0.5).toFixed(1)} / ${pct(latencies, 0.99).toFixed(1)} / ${latencies.at(-1)!.toFixed(1)} ms |`,
    cpu
      ? `| CPU per delivery: server / PostgreSQL | ${((cpu.server * 1000) / received).toFixed(0)} / ${((cpu.database * 1000) / received).toFixed(0)} µs |`
      : "| CPU per delivery | not readable here |",
    `| server RSS: started / ${IDLE} idle / all | ${mb(base)} / ${mb(idle)} / ${mb(loaded)} MiB |`,
    `| memory per idle subscriber | ${((idle - base) / IDLE / 1024).toFixed(1)} KiB |`,
    `| load average (1 min) | ${loadavg()[0]!.toFixed(2)} |`,
  ];
  console.log(["| measure | value |", "|---|---|", ...rows].join("\n"));
} finally {
  for (const r of requests) r.destroy();
  const exited = new Promise((r) => server.child.once("exit", r));
  server.child.kill("SIGTERM");
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  server.child.kill("SIGKILL");
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
}
