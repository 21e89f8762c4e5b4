/**
 * One bounded load run with wrk (Debian's `wrk`, C and one thread), the
 * load generator of the side-by-side setup the benchmark's goals were set on
 * (docs/decisions/1356-benchmark-load-generators.md). wrk spends about a third of
 * autocannon's CPU per request, so on a machine where the generator shares the
 * cores with the servers and PostgreSQL more of them is left to what is
 * measured. The request and the report are bench/wrk/load.lua's.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { LoadOptions, LoadSample, WriteRequest } from "./load.js";
import { findProgram } from "./program.js";

/** Run from source by tsx, as every bench script is. */
const SCRIPT = fileURLToPath(new URL("./wrk/load.lua", import.meta.url));

/** What bench/wrk/load.lua's `done()` prints after `WRK_RESULT `. Times in microseconds. */
interface WrkResult {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  failures: number;
  /** The first id of the row sequence no request used; null without one. */
  next: number | null;
}

/** The `wrk` binary on PATH or where Debian puts it; undefined when neither exists. */
export function wrkBinary(): Promise<string | undefined> {
  // wrk has no version flag: it prints its usage and exits 1.
  return findProgram(["wrk", "/usr/bin/wrk"], [0, 1]);
}

/**
 * Parses the `WRK_RESULT {…}` line out of wrk's standard output.
 * @throws Error when the line is missing (wrk failed before `done()`) or not the shape load.lua prints
 */
export function parseWrkResult(stdout: string): WrkResult {
  const line = stdout.split("\n").find((l) => l.startsWith("WRK_RESULT "));
  if (line === undefined) throw new Error(`wrk printed no result:\n${stdout.slice(-2000)}`);
  const r = JSON.parse(line.slice("WRK_RESULT ".length)) as WrkResult;
  for (const key of ["requests", "duration_us", "p50_us", "p99_us", "failures"] as const) {
    if (typeof r[key] !== "number") throw new Error(`wrk's result has no ${key}: ${line}`);
  }
  return r;
}

/**
 * Loads `url` with `wrk -t1 -c<connections> -d<duration>s` (with `write`,
 * POSTs of its body; with `write.path` a row sequence, each request on the
 * next row, and `write.path.next` moved past every id wrk sent, answered or
 * not). The generator's CPU comes from the shell's `times` after wrk exits,
 * so it counts wrk alone.
 * @throws Error when wrk is not installed or prints no result
 */
export async function loadWithWrk(url: string, options: LoadOptions, write?: WriteRequest): Promise<LoadSample> {
  const wrk = await wrkBinary();
  if (wrk === undefined) throw new Error("wrk is not installed (apt-get install wrk)");
  const dir = await mkdtemp(path.join(os.tmpdir(), "resc-wrk-"));
  try {
    // load.lua reads its whole configuration from these; none may come from the caller's environment.
    const env: Record<string, string> = { ...(process.env as Record<string, string>) };
    for (const name of ["WRK_METHOD", "WRK_BODY_FILE", "WRK_ROWS"]) delete env[name];
    let target = url;
    if (write !== undefined) {
      const bodyFile = path.join(dir, "body.json");
      await writeFile(bodyFile, write.body);
      env.WRK_METHOD = write.method;
      env.WRK_BODY_FILE = bodyFile;
      const base = url.replace(/\/$/, "");
      if (typeof write.path === "string") target = base + write.path;
      else {
        const rows = write.path;
        env.WRK_ROWS = `${rows.before} ${rows.next} ${rows.last} ${rows.after}`;
        target = base + "/";
      }
    }
    const args = [
      "-t1",
      `-c${options.connections}`,
      `-d${options.duration}s`,
      "--timeout",
      "10s",
      "-s",
      SCRIPT,
      target,
    ];
    // `times` prints the shell's and then its children's user and system time: the second line is wrk's.
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile("/bin/sh", ["-c", `"$0" "$@" && times`, wrk, ...args], { env, maxBuffer: 1 << 20 }, (error, out, err) =>
        error ? reject(new Error(`wrk failed: ${error.message}\n${err}`)) : resolve(out),
      ),
    );
    const r = parseWrkResult(stdout);
    if (write !== undefined && typeof write.path !== "string" && r.next !== null) write.path.next = r.next;
    const cpuMs = childCpuMs(stdout);
    return {
      requests: r.requests,
      rps: r.requests / (r.duration_us / 1e6),
      p50: r.p50_us / 1000,
      p99: r.p99_us / 1000,
      failures: r.failures,
      ...(cpuMs === undefined || r.requests === 0 ? {} : { generatorCpu: (cpuMs * 1000) / r.requests }),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The children's user + system time, in milliseconds, from the last line of
 * `stdout`: the second of the two `times` prints (`0m1.230000s 0m0.450000s`,
 * minutes and seconds of user, then of system time); undefined when that
 * line is not there.
 */
export function childCpuMs(stdout: string): number | undefined {
  const lines = stdout.trimEnd().split("\n");
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[lines.length - 1] ?? "");
  if (!m) return undefined;
  return (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
}
