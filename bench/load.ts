/**
 * One bounded load run with autocannon, from the benchmark's own process
 * (neither server runs in it).
 */
import autocannon from "autocannon";

/** Options of {@link loadOnce}. */
export interface LoadOptions {
  /** Seconds of load. */
  duration: number;
  /** Concurrent connections (each with one request in flight). */
  connections: number;
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
}

/** A write to load instead of a GET: its method, JSON body and, when each request needs its own, the next path. */
export interface WriteRequest {
  method: "POST";
  body: string;
  /** The path of the next request (an action on a fresh row each time); the URL's path when absent. */
  nextPath?: () => string;
}

/** Loads `url` for `duration` seconds (with `write`, POSTs) and summarizes the run. */
export async function loadOnce(url: string, options: LoadOptions, write?: WriteRequest): Promise<LoadSample> {
  const base = { url, connections: options.connections, duration: options.duration, pipelining: 1 };
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
              ...(write.nextPath ? { setupRequest: (req) => ({ ...req, path: write.nextPath!() }) } : {}),
            },
          ],
        },
  );
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}
