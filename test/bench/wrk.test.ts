/**
 * The benchmark's wrk driver (bench/wrk.ts with bench/wrk/load.lua) against
 * the real `wrk` and a `node:http` server made here that records what it
 * is sent: the GET, the POST with its body, the row sequence each id once
 * and in order, a failure counted, the parsing of what wrk and the
 * shell's `times` print, and the ceiling's best-of. Correctness only; nothing
 * here is timed. The wrk runs are skipped
 * where wrk is not installed (`.ci/run` installs Debian's).
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOnce, nextPath, type RowPaths, type WriteRequest } from "../../bench/load.js";
import { bestReadByIdCeiling } from "../../bench/ceiling.js";
import { rawTable } from "../../bench/report.js";
import { childCpuMs, parseWrkResult, wrkBinary } from "../../bench/wrk.js";

const wrk = await wrkBinary();
if (!wrk) console.warn("bench/wrk.test.ts skipped: wrk is not installed (apt-get install wrk)");

/** What the server saw: every request's method and path, and each POST body's length. */
const seen: { method: string; path: string; bodyLength: number }[] = [];
let server: Server;
let base: string;

describe("bench: parsing wrk's output", () => {
  it("reads load.lua's result line and the children's time from `times`", () => {
    const out =
      "Running 1s test @ http://127.0.0.1:1/\n  1 threads and 2 connections\n" +
      'WRK_RESULT {"requests":120,"duration_us":1002000,"p50_us":410,"p99_us":2300,"failures":0,"next":null}\n' +
      "0m0.010000s 0m0.002000s\n1m2.500000s 0m0.250000s\n";
    expect(parseWrkResult(out)).toEqual({
      requests: 120,
      duration_us: 1002000,
      p50_us: 410,
      p99_us: 2300,
      failures: 0,
      next: null,
    });
    expect(childCpuMs(out)).toBeCloseTo(62_750, 6);
    expect(childCpuMs("no times here")).toBeUndefined();
    expect(() => parseWrkResult("unable to connect to 127.0.0.1:1\n")).toThrow(/no result/);
  });

  it("gives the row paths in order and refuses once they are used up", () => {
    const write: WriteRequest = { method: "POST", body: "{}", path: { before: "/r/", after: "/x", next: 7, last: 8 } };
    expect([nextPath(write), nextPath(write)]).toEqual(["/r/7/x", "/r/8/x"]);
    expect(() => nextPath(write)).toThrow(/used up/);
  });

  it("writes the load generator's CPU in every round's row", () => {
    const table = rawTable([
      {
        name: "3 one film by id",
        path: { resc: "/films/133" },
        samples: { resc: [{ requests: 10, rps: 2, p50: 0.4, p99: 2, failures: 0, generatorCpu: 21.4 }] },
      },
    ]);
    const cells = table
      .split("\n")[2]!
      .split("|")
      .map((c) => c.trim());
    expect(cells.slice(1, 12)).toEqual(["3 one film by id", "resc", "1", "2", "0.4", "2.0", "0", "–", "–", "21", ""]);
  });
});

describe.skipIf(!wrk)("bench: load with wrk", () => {
  beforeAll(async () => {
    server = createServer((req, res) => {
      let length = 0;
      req.on("data", (chunk: Buffer) => (length += chunk.length));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", path: req.url ?? "", bodyLength: length });
        const missing = req.url?.includes("used-up") || req.url === "/missing";
        res.writeHead(missing ? 404 : 200, { "content-type": "application/json" });
        res.end('{"ok":true}');
      });
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await once(server, "close");
  });

  it("loads a GET and reports requests, latencies and its own CPU", async () => {
    seen.length = 0;
    // load.lua's settings come from the driver alone, never from the caller's environment.
    process.env.WRK_METHOD = "DELETE";
    let s;
    try {
      s = await loadOnce(`${base}/films/133`, { duration: 1, connections: 2, generator: "wrk" });
    } finally {
      delete process.env.WRK_METHOD;
    }
    expect(s.failures).toBe(0);
    expect(s.requests).toBeGreaterThan(10);
    // wrk counts the answers it read; the server may have answered a few more as the run was cut.
    expect(seen.length).toBeGreaterThanOrEqual(s.requests);
    expect(new Set(seen.map((r) => `${r.method} ${r.path}`))).toEqual(new Set(["GET /films/133"]));
    expect(s.rps).toBeGreaterThan(0);
    expect(s.p99).toBeGreaterThanOrEqual(s.p50);
    expect(s.generatorCpu).toBeGreaterThan(0);
  });

  it("POSTs the body to the one path", async () => {
    seen.length = 0;
    const body = JSON.stringify([{ first_name: "É", last_name: "x" }]);
    const s = await loadOnce(
      `${base}/`,
      { duration: 1, connections: 2, generator: "wrk" },
      {
        method: "POST",
        body,
        path: "/actors",
      },
    );
    expect(s.failures).toBe(0);
    expect(seen.length).toBeGreaterThan(0);
    for (const r of seen) expect(r).toEqual({ method: "POST", path: "/actors", bodyLength: Buffer.byteLength(body) });
  });

  it("sends each row of the sequence once, in order, and moves `next` past them", async () => {
    seen.length = 0;
    const rows: RowPaths = { before: "/rentals/", after: "/return", next: 100, last: 1_000_000 };
    const write: WriteRequest = { method: "POST", body: '{"staff_id":1}', path: rows };
    const s = await loadOnce(`${base}/`, { duration: 1, connections: 1, generator: "wrk" }, write);
    expect(s.failures).toBe(0);
    const ids = seen.map((r) => Number(/^\/rentals\/(\d+)\/return$/.exec(r.path)?.[1]));
    expect(ids.length).toBeGreaterThan(10);
    // One connection: the server sees the ids in the order wrk made them. wrk calls request() once to check
    // it before the run, so the first id may be spent on that check, never sent: skipped, never sent twice.
    expect([100, 101]).toContain(ids[0]);
    expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
    expect(rows.next).toBeGreaterThan(ids[ids.length - 1]!);
  });

  it("counts answers past the last row as failures", async () => {
    seen.length = 0;
    const write: WriteRequest = { method: "POST", body: "{}", path: { before: "/r/", after: "", next: 1, last: 3 } };
    const s = await loadOnce(`${base}/`, { duration: 1, connections: 1, generator: "wrk" }, write);
    const sent = seen.filter((r) => r.path !== "/r/used-up").map((r) => r.path);
    expect([
      ["/r/1", "/r/2", "/r/3"],
      ["/r/2", "/r/3"],
    ]).toContainEqual(sent);
    expect(seen.slice(sent.length).every((r) => r.path === "/r/used-up")).toBe(true);
    expect(s.failures).toBeGreaterThan(0);
    expect(s.failures).toBeGreaterThanOrEqual(s.requests - sent.length);
  });
});

describe("bench: the read by id's ceiling", () => {
  it("is the best rate over the client counts, each measured once, and undefined without pgbench", async () => {
    const measured: number[] = [];
    const rates: Record<number, number> = { 2: 30_500, 10: 31_574, 32: 24_800 };
    const measure = async (clients: number): Promise<number> => {
      measured.push(clients);
      return rates[clients]!;
    };
    expect(await bestReadByIdCeiling("unused", 1, [2, 10, 32, 10], measure)).toEqual({ tps: 31_574, clients: 10 });
    expect(measured).toEqual([2, 10, 32]);
    expect(await bestReadByIdCeiling("unused", 1, [2, 10], async () => undefined)).toBeUndefined();
  });
});
