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

/** Loads `url` for `duration` seconds and summarizes the run. */
export async function loadOnce(url: string, options: LoadOptions): Promise<LoadSample> {
  const r = await autocannon({ url, connections: options.connections, duration: options.duration, pipelining: 1 });
  return {
    requests: r.requests.total,
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failures: r.non2xx + r.errors + r.timeouts,
  };
}
