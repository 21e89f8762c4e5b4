/**
 * How many cases each property runs. `npm test` runs a bounded number (the
 * whole fuzz suite stays well under a minute); `npm run fuzz` sets
 * `RESC_FUZZ_RUNS` for a long run (README, "Fuzzing"). `RESC_FUZZ_SEED`
 * replays the seed a failure printed.
 */
import type { Parameters } from "fast-check";

/** Number of cases for one property: `RESC_FUZZ_RUNS` when set, else `bounded`. */
export function runs(bounded: number): number {
  const n = Number(process.env.RESC_FUZZ_RUNS);
  return Number.isInteger(n) && n > 0 ? n : bounded;
}

/** fast-check parameters for a property of `bounded` runs (seed from `RESC_FUZZ_SEED` when set). */
export function fcParameters(bounded: number): Parameters<unknown> {
  const seed = Number(process.env.RESC_FUZZ_SEED);
  const p: Parameters<unknown> = { numRuns: runs(bounded), endOnFailure: false };
  if (Number.isInteger(seed)) p.seed = seed;
  return p;
}

/** A vitest timeout for a property of `bounded` runs: generous per case, so a long run is not cut. */
export function timeoutFor(bounded: number): number {
  return 60_000 + runs(bounded) * 250;
}
