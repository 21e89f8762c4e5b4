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

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The figures of one server on one scenario: mean requests/s over the rounds, median p50 and p99 (ms). */
export function summarize(samples: readonly LoadSample[]): { rps: number; p50: number; p99: number } {
  return { rps: mean(samples.map((s) => s.rps)), p50: median(samples.map((s) => s.p50)), p99: median(samples.map((s) => s.p99)) };
}

const f0 = (x: number): string => x.toFixed(0);
const f1 = (x: number): string => x.toFixed(1);

/** The summary table: one row per scenario, resc against hand-written, and the throughput ratio. */
export function summaryTable(results: readonly ScenarioResult[]): string {
  const lines = [
    "| scenario | resc req/s | hand-written req/s | resc / hand-written | resc p50 ms | hand-written p50 ms | resc p99 ms | hand-written p99 ms |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    const a = summarize(r.samples.resc);
    const b = summarize(r.samples["hand-written"]);
    lines.push(
      `| ${r.name} | ${f0(a.rps)} | ${f0(b.rps)} | ${(a.rps / b.rps).toFixed(2)} | ${f1(a.p50)} | ${f1(b.p50)} | ${f1(a.p99)} | ${f1(b.p99)} |`,
    );
  }
  return lines.join("\n");
}

/** Every round's raw figures, in the order they were measured. */
export function rawTable(results: readonly ScenarioResult[]): string {
  const lines = ["| scenario | server | round | req/s | p50 ms | p99 ms | failures |", "|---|---|---:|---:|---:|---:|---:|"];
  for (const r of results) {
    for (const [label, samples] of Object.entries(r.samples)) {
      samples.forEach((s, i) => {
        lines.push(`| ${r.name} | ${label} | ${i + 1} | ${f0(s.rps)} | ${f1(s.p50)} | ${f1(s.p99)} | ${s.failures} |`);
      });
    }
  }
  return lines.join("\n");
}
