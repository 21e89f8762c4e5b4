/**
 * Finding an external program the benchmark drives (pgbench for the
 * ceiling, wrk for the side-by-side load; docs/decisions/1356-benchmark-load-generators.md).
 */
import { execFile } from "node:child_process";

/**
 * The first of `candidates` (a name looked up on PATH, or a full path) that
 * runs `<candidate> --version` and exits with one of `okExitCodes`; undefined
 * when none does (not installed). Never throws.
 * @param okExitCodes exit codes that still mean "the program ran": wrk prints
 *   its usage and exits 1 for `--version`
 */
export async function findProgram(
  candidates: readonly string[],
  okExitCodes: readonly number[] = [0],
): Promise<string | undefined> {
  for (const candidate of candidates) {
    const ran = await new Promise<boolean>((resolve) =>
      execFile(candidate, ["--version"], (error) =>
        resolve(error === null || (typeof error.code === "number" && okExitCodes.includes(error.code))),
      ),
    );
    if (ran) return candidate;
  }
  return undefined;
}
