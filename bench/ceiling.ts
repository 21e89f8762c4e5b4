/**
 * The ceiling of the read by id: pgbench running the very statement resc
 * sends for `/films/133` (compiled from the Pagila schema, the key a
 * pgbench variable), prepared. No HTTP server can answer faster than its
 * database answers that statement; resc's requests/s divided by this is the
 * share of the ceiling it reaches (README, "Benchmark"). pgbench's own rate
 * depends on its client count (on two cores two clients beat ten and ten
 * beat thirty-two), so {@link bestReadByIdCeiling} takes the best of a few
 * (docs/decisions/1356-benchmark-load-generators.md).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { buildDescriptor, compileSource } from "../compiler/index.js";
import { parseKey } from "../runtime/query/index.js";
import { compileRead } from "../runtime/sql/index.js";
import { findProgram } from "./program.js";
import { PAGILA_SCHEMA } from "./servers.js";

/** The pgbench binary on the PATH or in Debian's PostgreSQL folders, or undefined. */
function pgbenchBinary(): Promise<string | undefined> {
  return findProgram(["pgbench", "/usr/lib/postgresql/15/bin/pgbench", "/usr/lib/postgresql/16/bin/pgbench"]);
}

/**
 * Transactions per second of pgbench on the read-by-id statement against
 * `url`, or undefined when pgbench is not installed.
 * @param seconds how long pgbench runs
 * @param clients concurrent clients (`-c`), on two threads
 */
export async function readByIdCeiling(url: string, seconds: number, clients: number): Promise<number | undefined> {
  const pgbench = await pgbenchBinary();
  if (pgbench === undefined) return undefined;
  const source = await readFile(PAGILA_SCHEMA, "utf8");
  const compiled = compileSource(source, PAGILA_SCHEMA);
  if (!compiled.ok) throw new Error("the Pagila schema does not compile");
  const service = buildDescriptor(compiled.schema);
  const film = service.tables.find((t) => t.name === "film");
  if (!film) throw new Error("Pagila has no film table");
  const stmt = compileRead(service, film, parseKey(film, "133"));
  if (stmt.values.length !== 1) throw new Error("the read statement takes more than its key");
  const dir = await mkdtemp(path.join(os.tmpdir(), "resc-ceiling-"));
  try {
    const script = path.join(dir, "read.sql");
    await writeFile(script, `\\set id 133\n${stmt.text.replace("$1", ":id")};\n`);
    const { stdout } = await promisify(execFile)(pgbench, [
      "-n",
      "-M",
      "prepared",
      "-c",
      String(clients),
      "-j",
      "2",
      "-T",
      String(seconds),
      "-f",
      script,
      url,
    ]);
    const m = /tps = ([\d.]+)/.exec(stdout);
    if (!m) throw new Error(`pgbench printed no tps:\n${stdout}`);
    return Number(m[1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The best of {@link readByIdCeiling} over several client counts, and the count that reached it. */
export interface Ceiling {
  /** pgbench's transactions per second. */
  tps: number;
  /** The client count (`-c`) that reached it. */
  clients: number;
}

/**
 * Measures each of `clientCounts` (duplicates once, in order) and returns the
 * highest rate: the ceiling is the most the database answers, not what it
 * answers at one concurrency (docs/decisions/1356-benchmark-load-generators.md).
 * @param url the loaded Pagila database
 * @param seconds how long each pgbench run lasts
 * @param measure one run at a client count; {@link readByIdCeiling} unless a test passes its own
 * @returns undefined when a run gives none (pgbench not installed)
 * @throws Error when pgbench fails or prints no rate, as {@link readByIdCeiling}
 */
export async function bestReadByIdCeiling(
  url: string,
  seconds: number,
  clientCounts: readonly number[],
  measure: (clients: number) => Promise<number | undefined> = (clients) => readByIdCeiling(url, seconds, clients),
): Promise<Ceiling | undefined> {
  let best: Ceiling | undefined;
  for (const clients of [...new Set(clientCounts)]) {
    const tps = await measure(clients);
    if (tps === undefined) return undefined;
    if (best === undefined || tps > best.tps) best = { tps, clients };
  }
  return best;
}
