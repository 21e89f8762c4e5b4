/**
 * The benchmark's helpers around the read by id's HTTP floor (bench/floor.ts,
 * bench/constant-server.ts) and the CPU of a process tree (bench/cpu.ts,
 * `npm run bench:workers` with two workers). Correctness only; nothing here
 * is timed.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { processCpuMs, processTreeCpuMs } from "../../bench/cpu.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

describe("bench: the constant server", () => {
  it("answers every path with CONSTANT_BODY as JSON and stops on SIGTERM", async () => {
    const body = '{"film_id":133,"title":"CHAMBER ITALIAN","note":"é"}';
    const child = spawn(process.execPath, ["--import", "tsx", "bench/constant-server.ts"], {
      cwd: ROOT,
      env: { ...process.env, CONSTANT_BODY: body, PORT: "0" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const lines = createInterface({ input: child.stdout! });
      const [line] = (await once(lines, "line")) as [string];
      const port = Number(/^listening (\d+)$/.exec(line)?.[1]);
      expect(port).toBeGreaterThan(0);
      for (const path of ["/films/133", "/anything?x=1"]) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
        // Content-Length counts UTF-8 bytes, not characters.
        expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(body)));
        expect(await res.text()).toBe(body);
      }
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  }, 30_000);
});

describe("bench: CPU of a process tree", () => {
  it("adds the CPU of a child process to its parent's", async ({ skip }) => {
    if (!existsSync(`/proc/${process.pid}/stat`)) skip();
    // A child that spins for 400 ms of CPU and then waits to be killed, so its time is still counted.
    const child = spawn(
      process.execPath,
      ["-e", "const t = Date.now(); while (Date.now() - t < 400); console.log('done'); setInterval(() => {}, 1000);"],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await once(createInterface({ input: child.stdout! }), "line");
      const own = processCpuMs(process.pid)!;
      const tree = processTreeCpuMs(process.pid)!;
      // Clock ticks are 10 ms; the child spun for 400 ms of wall time on a shared machine.
      expect(tree - own).toBeGreaterThanOrEqual(100);
      expect(processTreeCpuMs(child.pid!)).toBeGreaterThanOrEqual(100);
      expect(processTreeCpuMs(2 ** 22 + 1)).toBeUndefined();
    } finally {
      child.kill("SIGKILL");
    }
  }, 30_000);
});
