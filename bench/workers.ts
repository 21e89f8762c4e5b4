/**
 * `npm run bench:workers`: `resc serve` on Pagila with 1 and with 2
 * worker processes (`--workers`), and with `--pgbouncer` mode (prepared
 * statements off; docs/decisions/1301-pgbouncer.md), loaded by autocannon (10 connections,
 * `--duration` seconds per scenario, after a 3 s warm-up) on the filtered
 * films page and the read of one film (docs/deploy.md). Prints requests/s
 * and p99 per scenario and worker count.
 */
import type { ChildProcess } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { createBenchDatabase } from "./database.js";
import { startRescServe } from "./servers.js";

const { values: opts } = parseArgs({ options: { duration: { type: "string", default: "10" } } });
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

const db = await createBenchDatabase();
const rows: string[] = ["| scenario | server | req/s | p99 ms |", "|---|---|---:|---:|"];
// 1 and 2 workers; then 1 worker with --pgbouncer on the same direct connection, which isolates
// what the mode costs (no prepared statements) from PgBouncer's own hop.
const runs: [string, number, string[]][] = [
  ["1 worker", 1, []],
  ["2 workers", 2, []],
  ["1 worker, --pgbouncer mode", 1, ["--pgbouncer"]],
];
try {
  for (const [label, workers, extra] of runs) {
    const { base, child } = await startServe(db.url, workers, extra);
    try {
      for (const path of PATHS) {
        await autocannon({ url: base + path, connections: 10, duration: 3 });
        const r = await autocannon({ url: base + path, connections: 10, duration: Number(opts.duration) });
        rows.push(`| \`${path}\` | ${label} | ${Math.round(r.requests.average)} | ${r.latency.p99} |`);
      }
    } finally {
      const exited = new Promise((res) => child.once("exit", res));
      child.kill("SIGTERM");
      await exited;
    }
  }
} finally {
  await db.drop();
}
process.stdout.write(rows.join("\n") + "\n");
