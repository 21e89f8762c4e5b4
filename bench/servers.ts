/**
 * Builds and starts the servers under test, each in its own Node process,
 * so the load generator, resc and the hand-written server never share an
 * event loop. Both run as JavaScript compiled by tsc (`bench/tsconfig.json`
 * → `bench/.build/`), as they would in production, not through a
 * TypeScript loader.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const BENCH_DIR = fileURLToPath(new URL(".", import.meta.url));
const ROOT = path.resolve(BENCH_DIR, "..");

/** A running server process. */
export interface ServerProcess {
  /** Report label: `resc` or `hand-written`. */
  label: string;
  /** `http://127.0.0.1:PORT` */
  base: string;
  /** Process id of the server. */
  pid: number;
  /** Sends SIGTERM and waits for the process to end (it closes its pool first). */
  stop(): Promise<void>;
}

/** The compiled entry file of each label, and what its environment adds. */
export const SERVER_ENTRIES = {
  resc: { file: path.join(BENCH_DIR, ".build/bench/resc-server.js"), env: {} },
  /** The same entry serving the bare API app, without the production layer (bench/resc-server.ts). */
  "resc bare": { file: path.join(BENCH_DIR, ".build/bench/resc-server.js"), env: { RESC_LAYER: "bare" } },
  "hand-written": { file: path.join(BENCH_DIR, ".build/bench/handwritten/server.js"), env: {} },
  generated: { file: path.join(BENCH_DIR, ".build/bench/generated-server.js"), env: {} },
  /** node:http answering `CONSTANT_BODY` from memory: the HTTP floor of the read by id (bench/constant-server.ts). */
  constant: { file: path.join(BENCH_DIR, ".build/bench/constant-server.js"), env: {} },
  /** The tickets table of `npm run bench:access` three ways (bench/access-service.ts). */
  "declared rule": { file: path.join(BENCH_DIR, ".build/bench/access-server.js"), env: { ACCESS_VARIANT: "declared" } },
  "hand-written hook": { file: path.join(BENCH_DIR, ".build/bench/access-server.js"), env: { ACCESS_VARIANT: "hook" } },
  "no rule": { file: path.join(BENCH_DIR, ".build/bench/access-server.js"), env: { ACCESS_VARIANT: "none" } },
} as const satisfies Record<string, { file: string; env: Record<string, string> }>;

/** The schema the resc server serves. */
export const PAGILA_SCHEMA = path.join(ROOT, "fixtures/pagila/pagila.resource");

/** Compiles the server entries and what they import into `bench/.build/` (tsc; about 10 s). */
export async function buildServers(): Promise<void> {
  const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
  await promisify(execFile)(process.execPath, [tsc, "-p", path.join(BENCH_DIR, "tsconfig.json")], { cwd: ROOT });
}

/** Options of {@link startServer}. */
export interface StartOptions {
  databaseUrl: string;
  /** Folder for V8 CPU profiles (`node --cpu-prof`), one subfolder per server, written when it stops; none when absent. */
  profileDir?: string;
  /** More environment for the child (the constant server's `CONSTANT_BODY`). */
  env?: Record<string, string>;
}

/**
 * Runs the compiled entry with `DATABASE_URL`, `SCHEMA_FILE` and `PORT=0`,
 * and resolves once the child prints `listening <port>`. Rejects when the
 * child exits first (its stderr is passed through) or takes more than 30 s.
 */
export async function startServer(label: keyof typeof SERVER_ENTRIES, options: StartOptions): Promise<ServerProcess> {
  const args: string[] = [];
  if (options.profileDir)
    args.push("--cpu-prof", `--cpu-prof-dir=${path.join(options.profileDir, label.replace(/ /g, "-"))}`);
  const entry = SERVER_ENTRIES[label];
  const child: ChildProcess = spawn(process.execPath, [...args, entry.file], {
    env: {
      ...process.env,
      ...entry.env,
      ...options.env,
      DATABASE_URL: options.databaseUrl,
      SCHEMA_FILE: PAGILA_SCHEMA,
      PORT: "0",
      NODE_ENV: "production",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label}: not listening after 30 s`)), 30_000);
    child.once("exit", (code) => reject(new Error(`${label}: exited with ${code} before listening`)));
    lines.on("line", (line) => {
      const m = /^listening (\d+)$/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return {
    label,
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * `resc serve` (the built `bin/resc.js`) on a random port with `args`
 * after the port, `nodeArgs` before the script (a CPU profile, say);
 * resolves once `/live` answers (up to 30 s).
 */
export async function startRescServe(
  args: readonly string[],
  nodeArgs: readonly string[] = [],
): Promise<{ base: string; child: ChildProcess }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [...nodeArgs, "bin/resc.js", "serve", "--port", String(port), ...args], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    const live = await fetch(`${base}/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (live) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { base, child };
}
