/**
 * One bounded load run, with autocannon from the benchmark's own process or
 * with wrk in a child process (bench/wrk.ts; docs/decisions/1356-benchmark-load-generators.md);
 * neither server runs in the benchmark's process.
 */
import autocannon from "autocannon";
import { loadWithWrk } from "./wrk.js";

/** The load generators the benchmark can drive (`--generator`). */
export type Generator = "autocannon" | "wrk";

/** Every {@link Generator}, in step with the type. */
export const GENERATORS = Object.keys({ autocannon: true, wrk: true } satisfies Record<Generator, true>) as Generator[];

/** Options of {@link loadOnce}. */
export interface LoadOptions {
  /** Seconds of load. */
  duration: number;
  /** Concurrent connections (each with one request in flight). */
  connections: number;
  /** Which program loads the server; autocannon when absent. */
  generator?: Generator;
}

/** What one run measured. Latencies in milliseconds. */
export interface LoadSample {
  /** Completed requests. */
  requests: number;
  /** Completed requests per second over the whole run. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx, plus connection errors and timeouts: any is a failed run. */
  failures: number;
  /** CPU time per request in microseconds, when /proc could be read (bench/cpu.ts). */
  cpu?: { server: number; database: number };
  /** The load generator's own CPU time per completed request, in microseconds. */
  generatorCpu?: number;
}

/**
 * The paths of an action on fresh rows: `before + id + after` for id =
 * `next`, `next + 1`, … up to `last`. A run moves `next` past the ids it
 * used, so the next run never acts on a row twice.
 */
export interface RowPaths {
  /** The path before the id (`/rentals/`). */
  before: string;
  /** The path after the id (`/return`, or empty). */
  after: string;
  /** The next id no request has used. */
  next: number;
  /** The last id there is a fresh row for. */
  last: number;
}

/** A write to load instead of a GET: its method, JSON body, and the one path or the row paths it goes to. */
export interface WriteRequest {
  method: "POST";
  body: string;
  path: string | RowPaths;
}

/**
 * The path of `write`'s next request; with row paths, takes the next id.
 * @throws Error when the row paths are used up
 */
export function nextPath(write: WriteRequest): string {
  if (typeof write.path === "string") return write.path;
  const rows = write.path;
  if (rows.next > rows.last) throw new Error(`the ${rows.last} rows of ${rows.before}{id}${rows.after} are used up`);
  return `${rows.before}${rows.next++}${rows.after}`;
}

/**
 * Loads `url` (the server's base with a GET's path; for a write, the base
 * and `/`) for `duration` seconds with the chosen generator (with `write`,
 * POSTs) and summarizes the run.
 */
export async function loadOnce(url: string, options: LoadOptions, write?: WriteRequest): Promise<LoadSample> {
  if (options.generator === "wrk") return loadWithWrk(url, options, write);
  const base = { url, connections: options.connections, duration: options.duration, pipelining: 1 };
  const mine = process.cpuUsage();
  const r = await autocannon(
    write === undefined
      ? base
      : {
          ...base,
          requests: [
            {
              method: write.method,
              headers: { "content-type": "application/json" },
              body: write.body,
              setupRequest: (req) => ({ ...req, path: nextPath(write) }),
            },
          ],
        },
  );
  const used = process.cpuUsage(mine);
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
    ...(r.requests.total > 0 ? { generatorCpu: (used.user + used.system) / r.requests.total } : {}),
  };
}
