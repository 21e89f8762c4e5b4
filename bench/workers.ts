/**
 * `npm run bench:workers`: `resc serve` on Pagila with 1 and with 2
 * worker processes (`--workers`), in `--pgbouncer` mode on a direct
 * connection (prepared statements off; docs/decisions/1301-pgbouncer.md),
 * and in that mode through a real PgBouncer in transaction mode when one is
 * installed (Debian's `pgbouncer`), and through a PgBouncer 1.21+ keeping
 * prepared statements with `--prepared-statements` when one is found
 * (`scripts/build-pgbouncer.sh`; docs/decisions/1347-pgbouncer-prepared-statements.md),
 * loaded by autocannon (10 connections)
 * on the filtered films page and the read of one film (docs/deploy.md).
 * Every server runs at once; each round loads each of them in turn, after
 * one second of load that reopens what its pool closed while the others
 * ran, for `--duration` seconds (default 8) per scenario and server over
 * `--rounds` rounds (default 3). Prints requests/s (mean of the rounds),
 * the ratio to one worker on direct connections, p99, and the CPU time per
 * request (median of the rounds, from /proc) of resc's processes, of the
 * database's PostgreSQL backends and of PgBouncer, which share the cores.
 */
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { PGBOUNCER, PGBOUNCER_TRACKING, startPgBouncer, type TestBouncer } from "../test/support/pgbouncer.js";
import { cpuBetween, markCpu, processCpuMs, processTreeCpuMs } from "./cpu.js";
import { createBenchDatabase } from "./database.js";
import { median } from "./report.js";
import { startRescServe } from "./servers.js";

const { values: opts } = parseArgs({
  options: { duration: { type: "string", default: "8" }, rounds: { type: "string", default: "3" } },
});
const PATHS = ["/films?rating=eq.PG&length=between.60,120&sort=title", "/films/133"];

/** `resc serve` of the Pagila fixture with `workers` processes and `extra` flags. */
function startServe(
  url: string,
  workers: number,
  extra: string[] = [],
): Promise<{ base: string; child: ChildProcess }> {
  return startRescServe([
    "fixtures/pagila/pagila.resource",
    "--hooks",
    "fixtures/pagila/hooks.ts",
    "--database-url",
    url,
    "--workers",
    String(workers),
    "--log-level",
    "silent",
    ...extra,
  ]);
}

/** CPU milliseconds of the PgBouncer a server goes through, or undefined for a direct connection. */
function pidCpu(via: TestBouncer | undefined): number | undefined {
  return via === undefined ? undefined : processCpuMs(via.pid);
}

const db = await createBenchDatabase();
let bouncer: TestBouncer | undefined;
let tracking: TestBouncer | undefined;
const servers: { label: string; base: string; child: ChildProcess; bouncer?: TestBouncer }[] = [];
const rows: string[] = [
  "| scenario | server | req/s | / 1 worker | p99 ms | CPU µs/req resc / PostgreSQL / PgBouncer |",
  "|---|---|---:|---:|---:|---|",
];
try {
  // 1 and 2 workers; 1 worker in --pgbouncer mode on the same direct connection, which isolates what
  // the mode costs (no prepared statements); and, with PgBouncer installed, that mode through it.
  const runs: [string, number, string[], string, TestBouncer?][] = [
    ["1 worker", 1, [], db.url],
    ["2 workers", 2, [], db.url],
    ["1 worker, `--pgbouncer` mode, direct connection", 1, ["--pgbouncer"], db.url],
  ];
  if (PGBOUNCER) {
    bouncer = await startPgBouncer(db.url, 10);
    runs.push([
      "1 worker, `--pgbouncer` mode, through PgBouncer",
      1,
      ["--pgbouncer"],
      bouncer.through(db.url),
      bouncer,
    ]);
  }
  if (PGBOUNCER_TRACKING) {
    tracking = await startPgBouncer(db.url, 10, { binary: PGBOUNCER_TRACKING, maxPreparedStatements: 200 });
    runs.push([
      "1 worker, `--pgbouncer --prepared-statements 200`, through PgBouncer 1.21+",
      1,
      ["--pgbouncer", "--prepared-statements", "200"],
      tracking.through(db.url),
      tracking,
    ]);
  }
  for (const [label, workers, extra, url, via] of runs)
    servers.push({ label, ...(await startServe(url, workers, extra)), ...(via ? { bouncer: via } : {}) });
  const database = decodeURIComponent(new URL(db.url).pathname.slice(1));
  const rps = new Map<string, number[]>();
  const p99 = new Map<string, number[]>();
  const cpu = new Map<string, { resc: number; database: number; bouncer?: number }[]>();
  for (let round = 1; round <= Number(opts.rounds); round++) {
    for (const path of PATHS) {
      for (const s of servers) {
        await autocannon({ url: s.base + path, connections: 10, duration: 1 });
        const pid = s.child.pid!;
        const before = { tree: processTreeCpuMs(pid), mark: markCpu(pid, database), bouncer: pidCpu(s.bouncer) };
        const r = await autocannon({ url: s.base + path, connections: 10, duration: Number(opts.duration) });
        const after = { tree: processTreeCpuMs(pid), mark: markCpu(pid, database), bouncer: pidCpu(s.bouncer) };
        const key = `${path}\u0000${s.label}`;
        rps.set(key, [...(rps.get(key) ?? []), r.requests.total / r.duration]);
        const used = cpuBetween(before.mark, after.mark);
        if (used && before.tree !== undefined && after.tree !== undefined && r.requests.total > 0) {
          const per = (ms: number): number => (ms * 1000) / r.requests.total;
          const bouncerMs =
            before.bouncer !== undefined && after.bouncer !== undefined ? after.bouncer - before.bouncer : undefined;
          cpu.set(key, [
            ...(cpu.get(key) ?? []),
            {
              resc: per(after.tree - before.tree),
              database: per(used.database),
              ...(bouncerMs !== undefined ? { bouncer: per(bouncerMs) } : {}),
            },
          ]);
        }
        p99.set(key, [...(p99.get(key) ?? []), r.latency.p99]);
        process.stderr.write(`round ${round} ${path} ${s.label}: ${Math.round(r.requests.total / r.duration)} req/s\n`);
      }
    }
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  for (const path of PATHS) {
    const base = mean(rps.get(`${path}\u00001 worker`)!);
    for (const s of servers) {
      const key = `${path}\u0000${s.label}`;
      const m = mean(rps.get(key)!);
      const sortedP99 = [...p99.get(key)!].sort((a, b) => a - b);
      const used = cpu.get(key) ?? [];
      const bouncerCpu = used.flatMap((u) => (u.bouncer === undefined ? [] : [u.bouncer]));
      const cpuCell =
        used.length === 0
          ? "unknown"
          : [
              median(used.map((u) => u.resc)),
              median(used.map((u) => u.database)),
              ...(bouncerCpu.length > 0 ? [median(bouncerCpu)] : []),
            ]
              .map((x) => x.toFixed(0))
              .join(" / ");
      rows.push(
        `| \`${path}\` | ${s.label} | ${Math.round(m)} | ${(m / base).toFixed(2)} | ${sortedP99[sortedP99.length >> 1]} | ${cpuCell} |`,
      );
    }
  }
} finally {
  for (const s of servers) {
    const exited = new Promise((res) => s.child.once("exit", res));
    s.child.kill("SIGTERM");
    await exited;
  }
  await bouncer?.stop();
  await tracking?.stop();
  await db.drop();
}
process.stdout.write(rows.join("\n") + "\n");
