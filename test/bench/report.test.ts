/**
 * The benchmark's summary table (bench/report.ts): ratios over the rounds'
 * mean requests/s, and the median CPU per request of resc, the bare app
 * and the hand-written server side by side.
 */
import { describe, expect, it } from "vitest";
import type { LoadSample } from "../../bench/load.js";
import { summaryTable, type ScenarioResult } from "../../bench/report.js";

const sample = (rps: number, server: number, database: number): LoadSample => ({
  requests: rps * 5,
  rps,
  p50: 1,
  p99: 4,
  failures: 0,
  cpu: { server, database },
});

describe("bench: summary table", () => {
  it("gives resc / hand-written and resc / bare, and the CPU of all three servers", () => {
    const result: ScenarioResult = {
      name: "3 one film by id",
      path: { resc: "/films/133" },
      samples: {
        resc: [sample(1000, 30, 10), sample(1400, 40, 14), sample(1200, 35, 12)],
        "resc bare": [sample(1100, 28, 11), sample(1300, 33, 13)],
        "hand-written": [sample(600, 50, 40), sample(600, 54, 44)],
      },
    };
    const row = summaryTable([result]).split("\n")[2]!;
    const cells = row.split("|").map((c) => c.trim());
    expect(cells.slice(1, 7)).toEqual(["3 one film by id", "1200", "1200", "600", "2.00", "1.00"]);
    // Medians: an odd count's middle value, an even count's mean of the middle two.
    expect(cells[9]).toBe("35 / 31 / 52");
    expect(cells[10]).toBe("12 / 12 / 42");
  });

  it("writes a dash where a server has no CPU figures", () => {
    const result: ScenarioResult = {
      name: "1 filtered sorted films page",
      path: { resc: "/films" },
      samples: {
        resc: [sample(100, 300, 200)],
        "hand-written": [{ ...sample(90, 0, 0), cpu: undefined }],
      },
    };
    const cells = summaryTable([result])
      .split("\n")[2]!
      .split("|")
      .map((c) => c.trim());
    expect(cells[3]).toBe("–");
    expect(cells[9]).toBe("300 / – / –");
  });
});
