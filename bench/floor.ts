/**
 * The HTTP floor of the read by id: the same load against Node's own
 * `node:http` answering resc's body from memory (bench/constant-server.ts),
 * measured right after the rounds. pgbench's ceiling (bench/ceiling.ts)
 * leaves HTTP out; this leaves the database out. On a machine where the
 * load generator, the server and PostgreSQL share the cores, the read by id
 * stays below both, and the report gives the two side by side.
 */
import { processCpuMs } from "./cpu.js";
import { loadOnce, type LoadOptions } from "./load.js";
import { startServer } from "./servers.js";

/** One run against the constant server. CPU figures in microseconds per completed request. */
export interface FloorSample {
  /** Completed requests per second. */
  rps: number;
  /** The constant server's process, when /proc could be read. */
  serverCpu?: number;
  /** The load generator (autocannon in this process, or wrk), when it could be read. */
  generatorCpu?: number;
}

/**
 * Starts the constant server with `body`, loads it for one second, then
 * for `load.duration` seconds, and stops it. Throws when a request fails,
 * as a round of the benchmark does.
 * @param body the answer's text (the run passes resc's body for `/films/133`)
 * @param load the rounds' duration and connections, so the floor is loaded as they were
 * @param databaseUrl passed on as to every server process; the constant server opens no connection
 */
export async function httpFloor(body: string, load: LoadOptions, databaseUrl: string): Promise<FloorSample> {
  const server = await startServer("constant", { databaseUrl, env: { CONSTANT_BODY: body } });
  try {
    const url = `${server.base}/films/133`;
    await loadOnce(url, { ...load, duration: 1 });
    const before = processCpuMs(server.pid);
    const sample = await loadOnce(url, load);
    const after = processCpuMs(server.pid);
    if (sample.failures > 0) throw new Error(`constant server: ${sample.failures} failed requests`);
    const per = (us: number): number => us / Math.max(1, sample.requests);
    return {
      rps: sample.rps,
      ...(before !== undefined && after !== undefined ? { serverCpu: per((after - before) * 1000) } : {}),
      ...(sample.generatorCpu === undefined ? {} : { generatorCpu: sample.generatorCpu }),
    };
  } finally {
    await server.stop();
  }
}
