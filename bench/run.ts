/**
 * `npm run bench`: resc against a hand-written Hono + pg server on the same
 * Pagila database (bench/RESULTS.md).
 *
 * 1. creates a database on the local server (or `DATABASE_URL`'s) and loads
 *    Pagila, unless `--database-url` names one already loaded;
 * 2. compiles the servers with tsc and starts three, each in its own
 *    process on 127.0.0.1: resc as `resc serve` runs it (the production
 *    layer: request ids, metrics, logging at `warn`), the bare API app
 *    (`resc bare`, the same routes without that layer) and the hand-written
 *    server;
 * 3. checks that all answer every scenario with the same JSON (the writes:
 *    the same status and row members), and stops if not: a faster wrong
 *    answer measures nothing;
 * 4. warms them up, then loads them in turn (autocannon from this process,
 *    or `--generator wrk`, the setup the goals were set on: bench/wrk.ts),
 *    `--rounds` rounds of `--duration` seconds per scenario and
 *    server, a different server going first in each round, each run
 *    after one second of load that reopens connections its pool closed
 *    while the other servers ran; then measures the read by id's ceiling
 *    (pgbench, bench/ceiling.ts) and HTTP floor (bench/floor.ts);
 * 5. prints a Markdown report (also written to `--out FILE`).
 *
 * Options: `--duration 5 --rounds 3 --warmup 3 --connections 10`,
 * `--generator autocannon` (or `wrk`; the side-by-side setup of
 * bench/RESULTS.md is `--generator wrk --connections 32 --duration 20 --rounds 2`),
 * `--only 1,3` (scenario numbers), `--profile DIR` (a V8 CPU profile of each
 * server, written when it stops), `--database-url URL` (reuse a loaded
 * database; it is not dropped).
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { bestReadByIdCeiling } from "./ceiling.js";
import { cpuBetween, markCpu } from "./cpu.js";
import { createBenchDatabase, prepareOpenRentals } from "./database.js";
import { httpFloor } from "./floor.js";
import { GENERATORS, loadOnce, nextPath, type Generator, type LoadOptions, type WriteRequest } from "./load.js";
import { rawTable, summarize, summaryTable, type ScenarioResult } from "./report.js";
import { SCENARIOS, firstDifference, getJson, sameAnswer, writeScenarios, writeShape } from "./scenarios.js";
import { buildServers, startServer, type ServerProcess } from "./servers.js";

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    generator: { type: "string", default: "autocannon" },
    only: { type: "string" },
    profile: { type: "string" },
    out: { type: "string" },
    "database-url": { type: "string" },
  },
});

if (!(GENERATORS as string[]).includes(opts.generator)) {
  throw new Error(`--generator takes ${GENERATORS.join(" or ")}, not ${opts.generator}`);
}
const load: LoadOptions = {
  duration: Number(opts.duration),
  connections: Number(opts.connections),
  generator: opts.generator as Generator,
};
const rounds = Number(opts.rounds);
const warmup = Number(opts.warmup);
const only = opts.only?.split(",").map(Number);
const scenarios = SCENARIOS.filter((_, i) => only === undefined || only.includes(i + 1));
const wanted = (name: string): boolean => only === undefined || only.includes(Number(name.split(" ")[0]));
/** Rentals prepared per server for the action scenario: more than a run can return. */
const OPEN_RENTALS = 200_000;

async function serverVersion(url: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
  } finally {
    await c.end();
  }
}

function log(line: string): void {
  process.stderr.write(line + "\n");
}

async function main(): Promise<void> {
  log("compiling the servers (tsc)…");
  await buildServers();
  log("loading Pagila…");
  const db = opts["database-url"] ? { url: opts["database-url"], drop: async () => {} } : await createBenchDatabase();
  const database = decodeURIComponent(new URL(db.url).pathname.slice(1));
  const servers: ServerProcess[] = [];
  try {
    for (const label of ["resc", "resc bare", "hand-written"] as const) {
      servers.push(await startServer(label, { databaseUrl: db.url, profileDir: opts.profile }));
    }
    const results: ScenarioResult[] = [];
    for (const s of scenarios) {
      const path: Record<string, string> = {};
      const bodies: unknown[] = [];
      for (const server of servers) {
        path[server.label] = await s.path(server.base);
        bodies.push(await getJson(server.base, path[server.label]));
      }
      for (const [i, body] of bodies.entries()) {
        if (i > 0 && !sameAnswer(bodies[0], body)) {
          throw new Error(
            `scenario "${s.name}": ${servers[0]!.label} and ${servers[i]!.label} disagree at ${firstDifference(bodies[0], body)}`,
          );
        }
      }
      log(`same JSON: ${s.name} (${path.resc})`);
      results.push({ name: s.name, path, samples: Object.fromEntries(servers.map((x) => [x.label, []])) });
    }
    // The writes: both servers must answer alike (status, row members) before anything is measured.
    const writes: Record<string, Record<string, WriteRequest>> = {};
    const writesWanted = writeScenarios({}).some((w) => wanted(w.name));
    const open = writesWanted
      ? await prepareOpenRentals(
          db.url,
          servers.map((s) => s.label),
          OPEN_RENTALS,
        )
      : {};
    for (const w of writeScenarios(open).filter((w) => wanted(w.name))) {
      const shapes: string[] = [];
      writes[w.name] = {};
      const path: Record<string, string> = {};
      for (const server of servers) {
        const write: WriteRequest = { method: "POST", body: w.body, path: w.path(server.label) };
        const res = await fetch(server.base + nextPath(write), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: w.body,
        });
        shapes.push(writeShape(res.status, await res.json()));
        writes[w.name][server.label] = write;
        path[server.label] = w.shown;
      }
      if (shapes.some((x) => x !== shapes[0]) || !/^20[01] /.test(shapes[0]!))
        throw new Error(`scenario "${w.name}": the servers answer ${shapes.join(" and ")}`);
      log(`same answer: ${w.name} (${shapes[0]})`);
      results.push({ name: w.name, path, samples: Object.fromEntries(servers.map((x) => [x.label, []])) });
    }
    const target = (r: ScenarioResult, server: ServerProcess): [string, WriteRequest | undefined] => {
      const write = writes[r.name]?.[server.label];
      return [write ? server.base + "/" : server.base + r.path[server.label], write];
    };
    const loadBefore = os.loadavg()[0];
    for (const r of results) {
      for (const server of servers) {
        const [url, write] = target(r, server);
        await loadOnce(url, { ...load, duration: warmup }, write);
      }
    }
    for (let round = 1; round <= rounds; round++) {
      // Each server goes first in turn, so none always meets a machine the one before it warmed.
      const shift = (round - 1) % servers.length;
      const order = [...servers.slice(shift), ...servers.slice(0, shift)];
      for (const r of results) {
        for (const server of order) {
          const [url, write] = target(r, server);
          // One second of load first: a pool idle for 10 s while the others ran has closed its
          // connections (node-postgres's default), and reopening them is not what a round measures.
          await loadOnce(url, { ...load, duration: 1 }, write);
          const before = markCpu(server.pid, database);
          const sample = await loadOnce(url, load, write);
          const cpu = cpuBetween(before, markCpu(server.pid, database));
          if (cpu && sample.requests > 0) {
            sample.cpu = {
              server: (cpu.server * 1000) / sample.requests,
              database: (cpu.database * 1000) / sample.requests,
            };
          }
          if (sample.failures > 0) throw new Error(`${server.label}, ${r.name}: ${sample.failures} failed requests`);
          r.samples[server.label].push(sample);
          log(
            `round ${round} ${r.name} ${server.label}: ${sample.rps.toFixed(0)} req/s, ` +
              `p50 ${sample.p50.toFixed(1)} ms, p99 ${sample.p99.toFixed(1)} ms`,
          );
        }
      }
    }
    // Measured right after the rounds, so the machine is in the same state as for them.
    const readById = results.find((r) => r.path.resc === "/films/133");
    // Two clients (one a core here), the load generator's ten by default, and this run's connections.
    const clientCounts = [...new Set([2, 10, load.connections])];
    const ceiling = readById ? await bestReadByIdCeiling(db.url, load.duration, clientCounts) : undefined;
    const readRps = readById ? summarize(readById.samples.resc).rps : 0;
    const floor = readById
      ? await httpFloor(await (await fetch(servers[0]!.base + "/films/133")).text(), load, db.url)
      : undefined;
    const cpus = os.cpus();
    const loadAfter = os.loadavg()[0];
    const report = [
      `# Benchmark: resc against hand-written Hono + pg`,
      "",
      `Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ` +
        `Node ${process.version}; PostgreSQL ${await serverVersion(db.url)} on the same machine.`,
      `Load: ${load.generator === "wrk" ? "wrk -t1" : "autocannon"}, ${load.connections} connections, ${warmup} s warm-up, then ${rounds} alternating rounds of ${load.duration} s per scenario and server.`,
      `Every server uses a node-postgres pool of 10; requests/s is the mean over the rounds, latencies the median of the rounds' percentiles.`,
      `CPU µs/req: the server process (Node) and the PostgreSQL backends of the benchmark database, each per completed request (median of the rounds; from /proc).`,
      `resc is the app \`resc serve\` runs; resc bare the same routes without the production layer (request ids, metrics, logging at \`warn\`).`,
      `System load average (1 min) when measuring began: ${loadBefore.toFixed(2)}; when it ended: ${loadAfter.toFixed(2)} ` +
        `(everything shares the ${cpus.length} cores; a busy machine lowers both servers' figures, CPU per request moves less).`,
      "",
      summaryTable(results),
      "",
      ...(ceiling === undefined
        ? []
        : [
            `Ceiling of the read by id: pgbench running resc's statement for \`/films/133\` (prepared, ` +
              `${load.duration} s each with ${clientCounts.slice(0, -1).join(", ")} and ${clientCounts[clientCounts.length - 1]} clients, right after the rounds; the best, ` +
              `with ${ceiling.clients}): ${ceiling.tps.toFixed(0)} transactions/s; resc reaches ` +
              `${(readRps / ceiling.tps).toFixed(2)} of it.`,
            "",
          ]),
      ...(floor === undefined
        ? []
        : [
            `HTTP floor of the read by id: the same load against \`node:http\` answering resc's body for \`/films/133\` from memory ` +
              `(no framework, no database; right after the ceiling): ${floor.rps.toFixed(0)} requests/s` +
              (ceiling === undefined ? "" : `, ${(floor.rps / ceiling.tps).toFixed(2)} of the ceiling`) +
              `; resc reaches ${(readRps / floor.rps).toFixed(2)} of it. CPU µs/req there: the server ` +
              `${floor.serverCpu === undefined ? "unknown" : floor.serverCpu.toFixed(0)}, the load generator ` +
              `${floor.generatorCpu === undefined ? "unknown" : floor.generatorCpu.toFixed(0)}.`,
            "",
          ]),
      "Paths:",
      "",
      ...results.map((r) => `- ${r.name}: \`${r.path.resc}\``),
      "",
      "Every round:",
      "",
      rawTable(results),
      "",
    ].join("\n");
    process.stdout.write(report);
    if (opts.out) await writeFile(opts.out, report);
  } finally {
    for (const s of servers) await s.stop();
    await db.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
