/**
 * Turns the samples of a benchmark run into the Markdown report printed by
 * `npm run bench` (and kept in bench/RESULTS.md): a summary table per
 * scenario and every round's raw figures.
 */
import type { LoadSample } from "./load.js";

/** Samples of one scenario on one server, one per round. */
export type Samples = Record<string, LoadSample[]>;

/** One scenario's samples, by server label (`resc`, `hand-written`). */
export interface ScenarioResult {
  name: string;
  path: Record<string, string>;
  samples: Samples;
}

/** The median of `xs`: the middle value of an odd count, the mean of the middle two of an even one (NaN when empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The figures of one server on one scenario, summarized over the rounds. */
export interface Summary {
  /** Mean requests/s. */
  rps: number;
  /** Median of the rounds' p50 and p99 latencies, ms. */
  p50: number;
  p99: number;
  /** Median CPU µs per request of the server process (Node) and of the database backends; undefined when not measured. */
  cpu?: { server: number; database: number };
}

/** Summarizes one server's rounds on one scenario. */
export function summarize(samples: readonly LoadSample[]): Summary {
  const out: Summary = {
    rps: mean(samples.map((s) => s.rps)),
    p50: median(samples.map((s) => s.p50)),
    p99: median(samples.map((s) => s.p99)),
  };
  const cpu = samples.flatMap((s) => (s.cpu ? [s.cpu] : []));
  if (cpu.length === samples.length && cpu.length > 0) {
    out.cpu = { server: median(cpu.map((c) => c.server)), database: median(cpu.map((c) => c.database)) };
  }
  return out;
}

const f0 = (x: number): string => x.toFixed(0);
const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);

const orDash = (x: number | undefined, f: (x: number) => string): string => (x === undefined ? "–" : f(x));

/**
 * The summary table: one row per scenario with resc (the app `resc serve`
 * runs), the bare API app and the hand-written server; the throughput
 * ratios resc / hand-written and resc / bare (the production layer's cost,
 * measured in the same run), the p50/p99 of resc and hand-written, and the
 * CPU each of the three spends per request, Node and PostgreSQL apart, so a
 * gain in one bought with the other shows, and the layer's cost shows in
 * CPU too, which a busy machine moves less than requests/s.
 */
export function summaryTable(results: readonly ScenarioResult[]): string {
  const lines = [
    "| scenario | resc req/s | bare req/s | hand-written req/s | resc / hand-written | resc / bare | p50 ms resc / hand | p99 ms resc / hand | Node CPU µs/req resc / bare / hand | PostgreSQL CPU µs/req resc / bare / hand |",
    "|---|---:|---:|---:|---:|---:|---|---|---|---|",
  ];
  for (const r of results) {
    const a = summarize(r.samples.resc ?? []);
    const bare = r.samples["resc bare"] ? summarize(r.samples["resc bare"]) : undefined;
    const b = summarize(r.samples["hand-written"] ?? []);
    const triple = (x: number | undefined, y: number | undefined, z: number | undefined): string =>
      `${orDash(x, f0)} / ${orDash(y, f0)} / ${orDash(z, f0)}`;
    lines.push(
      `| ${r.name} | ${f0(a.rps)} | ${orDash(bare?.rps, f0)} | ${f0(b.rps)} | ${f2(a.rps / b.rps)} | ` +
        `${orDash(bare ? a.rps / bare.rps : undefined, f2)} | ${f1(a.p50)} / ${f1(b.p50)} | ${f1(a.p99)} / ${f1(b.p99)} | ` +
        `${triple(a.cpu?.server, bare?.cpu?.server, b.cpu?.server)} | ` +
        `${triple(a.cpu?.database, bare?.cpu?.database, b.cpu?.database)} |`,
    );
  }
  return lines.join("\n");
}

/** Every round's raw figures, in the order they were measured. */
export function rawTable(results: readonly ScenarioResult[]): string {
  const lines = [
    "| scenario | server | round | req/s | p50 ms | p99 ms | failures | CPU µs/req Node | CPU µs/req PostgreSQL | CPU µs/req load generator |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    for (const [label, samples] of Object.entries(r.samples)) {
      samples.forEach((s, i) => {
        lines.push(
          `| ${r.name} | ${label} | ${i + 1} | ${f0(s.rps)} | ${f1(s.p50)} | ${f1(s.p99)} | ${s.failures} | ` +
            `${orDash(s.cpu?.server, f0)} | ${orDash(s.cpu?.database, f0)} | ${orDash(s.generatorCpu, f0)} |`,
        );
      });
    }
  }
  return lines.join("\n");
}
