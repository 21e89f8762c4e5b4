/**
 * stopOnSignal: one stop per process however many signals arrive. `npm`
 * and `tsx` relay a Ctrl-C the terminal also sent to the whole process
 * group, so the second copy must not kill the process halfway through
 * closing its database.
 */
import process from "node:process";
import { describe, expect, it } from "vitest";
import { stopOnSignal } from "../../runtime/ops/shutdown.js";

describe("stopOnSignal", () => {
  it("closes once and keeps ignoring later signals instead of leaving them to their default action", async () => {
    const before = process.listenerCount("SIGINT");
    let closes = 0;
    let serverCloses = 0;
    let releaseClose = (): void => undefined;
    const server = {
      close(callback?: (err?: Error) => void): void {
        serverCloses++;
        callback?.();
      },
    };
    const stopped = stopOnSignal(server, {
      close: () =>
        new Promise<void>((resolve) => {
          closes++;
          releaseClose = resolve;
        }),
    });
    process.emit("SIGINT");
    // The relayed copy arrives while the database is still closing.
    process.emit("SIGINT");
    process.emit("SIGTERM");
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    await new Promise((r) => setImmediate(r));
    releaseClose();
    await expect(stopped).resolves.toBe("stopped");
    expect([serverCloses, closes]).toEqual([1, 1]);
    // Still handled after the stop, so a late copy cannot kill the process before it exits.
    expect(process.listenerCount("SIGINT")).toBe(before + 1);
    expect(process.listenerCount("SIGTERM")).toBeGreaterThan(0);
    process.emit("SIGINT");
    expect([serverCloses, closes]).toEqual([1, 1]);
  });

  it("answers timeout when closing takes longer than the limit", async () => {
    const server = { close: (): void => undefined };
    const stopped = stopOnSignal(server, { timeoutMs: 20 });
    process.emit("SIGTERM");
    await expect(stopped).resolves.toBe("timeout");
  });
});
