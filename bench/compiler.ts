/**
 * `npm run bench:compiler`: every figure of bench/COMPILER.md's table. On the
 * synthetic schema (bench/synthetic.ts) of 100, 500 and 1,000 tables: wall
 * time and peak memory of `resc check`, `resc openapi` (and the document's
 * size) and `resc generate`, without and with a typed client and command
 * tree (`cli_dir`); `resc check` on Pagila; and a service's start
 * on a loaded Pagila database, from launch to its first 200 on
 * `GET /films/1`: the hand-written Hono server, the Hono module
 * `resc generate` writes (bench/generated-server.ts) and `resc serve`.
 * Each command is a fresh `node …` process as a user runs it; times are the
 * median of `--runs` runs (default 5), memory the largest peak RSS (GNU
 * time when installed). Prints Markdown (`--out FILE` writes it too).
 * `--no-start` skips the start-up rows (they need PostgreSQL).
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createBenchDatabase } from "./database.js";
import { buildServers, SERVER_ENTRIES } from "./servers.js";
import { syntheticSchema } from "./synthetic.js";

const { values: opts } = parseArgs({
  options: {
    sizes: { type: "string", default: "100,500,1000" },
    runs: { type: "string", default: "5" },
    out: { type: "string" },
    "no-start": { type: "boolean", default: false },
  },
});
const runs = Number(opts.runs);
const bin = path.resolve("bin/resc.js");
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

interface Figure {
  seconds: number;
  mb: number | undefined;
}

/** Seconds and peak RSS in MB of one `node bin/resc.js …` run. */
function once(args: string[], cwd: string): Figure {
  const start = performance.now();
  if (gnuTime) {
    const r = spawnSync(gnuTime, ["-f", "%M", process.execPath, bin, ...args], {
      cwd,
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    const kb = Number(r.stderr.trim().split("\n").pop());
    return { seconds: (performance.now() - start) / 1000, mb: Number.isFinite(kb) ? Math.round(kb / 1024) : undefined };
  }
  execFileSync(process.execPath, [bin, ...args], { cwd, stdio: "ignore", maxBuffer: 1 << 30 });
  return { seconds: (performance.now() - start) / 1000, mb: undefined };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

/** The median time and the largest peak memory of `runs` runs. */
function measure(args: string[], cwd: string): Figure {
  const all = Array.from({ length: runs }, () => once(args, cwd));
  const mbs = all.map((f) => f.mb).filter((m): m is number => m !== undefined);
  return { seconds: median(all.map((f) => f.seconds)), mb: mbs.length > 0 ? Math.max(...mbs) : undefined };
}

const fmt = (m: Figure): string => `${m.seconds.toFixed(2)} s${m.mb !== undefined ? `, ${m.mb} MB` : ""}`;

/** Seconds from launching `args` to the first 200 on GET /films/1 (the process gets DATABASE_URL and PORT). */
async function startToFirst200(args: string[], databaseUrl: string): Promise<number> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const start = performance.now();
  const child = spawn(
    process.execPath,
    args.map((a) => (a === "$PORT" ? String(port) : a)),
    {
      stdio: "ignore",
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        NODE_ENV: "production",
        CACHE_DIR: path.join(dir, "cache"),
      },
    },
  );
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${args.join(" ")} exited with ${child.exitCode}`);
      const r = await fetch(`http://127.0.0.1:${port}/films/1`).catch(() => undefined);
      if (r?.status === 200) return (performance.now() - start) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

/** Median seconds of `node …args` (a process that starts and ends). */
function nodeSeconds(args: string[]): number {
  const times = Array.from({ length: runs }, () => {
    const start = performance.now();
    spawnSync(process.execPath, args, { stdio: "ignore" });
    return (performance.now() - start) / 1000;
  });
  return median(times);
}

const dir = await mkdtemp(path.join(os.tmpdir(), "resc-bench-compiler-"));
// This machine's speed moves by a quarter from hour to hour (shared cores): an empty process says how fast it is now.
const calibration = `An empty Node process (\`node -e 0\`) took ${nodeSeconds(["-e", "0"]).toFixed(2)} s and \`resc --version\` ${nodeSeconds([bin, "--version"]).toFixed(2)} s during this run.`;
const rows = [
  `Median of ${runs} runs, each a fresh process; memory: the largest peak RSS. ${calibration}`,
  "",
  "| tables | resc check | resc openapi (size) | resc generate | resc generate with `cli_dir` |",
  "|---:|---|---|---|---|",
];
try {
  for (const n of opts.sizes.split(",").map(Number)) {
    const file = path.join(dir, `s${n}.resource`);
    await writeFile(
      file,
      syntheticSchema(n).replace("api {", `generate {\n  dir     = "gen${n}"\n  package = "app"\n}\n\napi {`),
    );
    const check = measure(["check", file], dir);
    const openapi = measure(["openapi", file], dir);
    const document = execFileSync(process.execPath, [bin, "openapi", file], {
      cwd: dir,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 1 << 30,
    });
    const size = Buffer.byteLength(document);
    const generate = measure(["generate", file], dir);
    // The same schema writing the typed client and the oclif command tree as well, as spec.resource does.
    const withCli = path.join(dir, `c${n}.resource`);
    await writeFile(
      withCli,
      syntheticSchema(n).replace(
        "api {",
        `generate {\n  dir      = "cli${n}"\n  package  = "app"\n  cli_dir  = "cli"\n  cli_name = "syn"\n}\n\napi {`,
      ),
    );
    const generateCli = measure(["generate", withCli], dir);
    rows.push(
      `| ${n} | ${fmt(check)} | ${fmt(openapi)} (${(size / 1e6).toFixed(1)} MB, ${Math.round(size / n / 1000)} KB/table) | ${fmt(generate)} | ${fmt(generateCli)} |`,
    );
    process.stderr.write(`${n} tables done\n`);
  }
  const pagila = measure(["check", path.resolve("fixtures/pagila/pagila.resource")], dir);
  rows.push("", `\`resc check fixtures/pagila/pagila.resource\`: ${fmt(pagila)}`);

  if (!opts["no-start"]) {
    await buildServers();
    const db = await createBenchDatabase();
    try {
      // Pagila declares an action: its hooks module is part of the service's start.
      const serve = [
        bin,
        "serve",
        path.resolve("fixtures/pagila/pagila.resource"),
        "--hooks",
        path.resolve("fixtures/pagila/hooks.ts"),
        "--port",
        "$PORT",
        "--log-level",
        "silent",
      ];
      const servers: [string, string[]][] = [
        ["hand-written Hono + pg server (bench/handwritten)", [SERVER_ENTRIES["hand-written"].file]],
        ["the Hono module `resc generate` writes (bench/generated-server.ts)", [SERVER_ENTRIES.generated.file]],
        [
          "`resc serve fixtures/pagila/pagila.resource --hooks fixtures/pagila/hooks.ts` (schema compiled at an earlier start, decision 1326)",
          serve,
        ],
        [
          "`resc serve fixtures/pagila/pagila.resource --hooks … --no-cache` (compiled at every start)",
          [...serve, "--no-cache"],
        ],
      ];
      // The cached row's first start compiles and writes the entry; the median is of starts that read it.
      rows.push("", "A service's start on Pagila, launch to the first 200 (`GET /films/1`):", "");
      rows.push("| server | median | slowest |", "|---|---:|---:|");
      for (const [label, args] of servers) {
        const times: number[] = [];
        for (let i = 0; i < runs; i++) times.push(await startToFirst200(args, db.url));
        rows.push(`| ${label} | ${median(times).toFixed(2)} s | ${Math.max(...times).toFixed(2)} s |`);
      }
    } finally {
      await db.drop();
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
const report = rows.join("\n") + "\n";
process.stdout.write(report);
if (opts.out) await writeFile(opts.out, report);
