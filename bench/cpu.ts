/**
 * CPU time spent per request, read from Linux `/proc`: the server process
 * and the PostgreSQL backends serving the benchmark database. On a shared
 * or busy machine requests/s moves with whatever else runs; CPU time per
 * request moves much less, so the report shows both. Where `/proc` cannot
 * be read (another OS, backends of another user without permission) the
 * figures are left out.
 */
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * The fields of `/proc/<pid>/stat` from field 3 (state) on: the command name
 * before them may hold spaces, so they start after its last `)`. Undefined
 * when the process is gone or not ours to read.
 */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** User + system CPU of process `pid` (all its threads) in milliseconds, or undefined when it cannot be read. */
export function processCpuMs(pid: number): number | undefined {
  const fields = statFields(pid);
  // Fields 14 and 15 (utime, stime), in clock ticks.
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/**
 * User + system CPU in milliseconds of process `pid` and its children (the
 * workers `resc serve --workers N` forks), or undefined when `pid` cannot
 * be read. A child that ended is lost, as in {@link cpuBetween}.
 */
export function processTreeCpuMs(pid: number): number | undefined {
  const own = processCpuMs(pid);
  if (own === undefined) return undefined;
  let total = own;
  for (const e of readdirSync("/proc")) {
    // Field 4, the parent's pid, is the second from the state on.
    if (/^\d+$/.test(e) && Number(statFields(e)?.[1]) === pid) total += processCpuMs(Number(e)) ?? 0;
  }
  return total;
}

/** Pids of the PostgreSQL backends connected to `database` (process title `postgres: … <user> <database> <client> …`). */
function backendPids(database: string): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const title = readFileSync(`/proc/${e}/cmdline`, "utf8");
      if (title.startsWith("postgres: ") && title.split(" ").includes(database)) out.push(Number(e));
    } catch {
      // The process ended or is not ours to read.
    }
  }
  return out;
}

/** CPU milliseconds of one measured interval. */
export interface CpuUse {
  /** The server process (Node). */
  server: number;
  /** Every backend of the database: only the loaded server's backends are busy during a run. */
  database: number;
}

/** Snapshot of the server process and the database backends, to subtract from a later one. */
export interface CpuMark {
  server: number | undefined;
  backends: Map<number, number>;
}

/** Reads the CPU counters now. */
export function markCpu(serverPid: number, database: string): CpuMark {
  const backends = new Map<number, number>();
  for (const pid of backendPids(database)) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) backends.set(pid, ms);
  }
  return { server: processCpuMs(serverPid), backends };
}

/**
 * CPU used between `before` and `after`; undefined when the server process
 * could not be read or no backend was visible. A backend that started
 * during the interval counts whole; one that ended is lost (the pools keep
 * their connections while loaded, so none should).
 */
export function cpuBetween(before: CpuMark, after: CpuMark): CpuUse | undefined {
  if (before.server === undefined || after.server === undefined || after.backends.size === 0) return undefined;
  let database = 0;
  for (const [pid, ms] of after.backends) database += ms - (before.backends.get(pid) ?? 0);
  return { server: after.server - before.server, database };
}
