/**
 * A start-up failure of `resc dev` is one clear line and exit 1, never an
 * unhandled `error` event with a stack trace (docs/decisions/1060-packaging.md): the port in
 * use, a database that cannot be reached, a hooks module that does not
 * load, a schema file that does not exist.
 */
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode } from "../support/run.js";

const FILE = "test/faults/fixtures/faults.resource";
let taken: net.Server;
let dataDir = "";
let port = 0;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "resc-start-"));
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  port = (taken.address() as net.AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
  await rm(dataDir, { recursive: true, force: true });
});

/** The lines of stderr that are neither npm's nor Node's warnings. */
const errorLines = (stderr: string): string[] => stderr.split("\n").filter((l) => l.trim() !== "" && !/warn/i.test(l));

describe("resc dev start-up failures", () => {
  it.each([
    [
      "the port is taken",
      () => ["--port", String(port), "--data-dir", dataDir],
      /port \d+ on 127\.0\.0\.1 is already in use/,
    ],
    [
      "the database cannot be reached",
      () => ["--database-url", "postgres://postgres@127.0.0.1:1/none"],
      /cannot reach the database/,
    ],
    [
      "the hooks module does not load",
      () => ["--hooks", "no/such/hooks.ts", "--data-dir", "/tmp/resc-never"],
      /cannot load hooks module no\/such\/hooks\.ts/,
    ],
  ] as const)("%s: one line, exit 1", async (_, args, message) => {
    const r = await runNode(["bin/resc.js", "dev", FILE, ...args()], { timeout: 60_000 });
    expect(r.code, r.stderr).toBe(1);
    const lines = errorLines(r.stderr);
    expect(lines.join("\n")).toMatch(message);
    expect(lines.length, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });

  it("a missing schema file: one line, exit 1", async () => {
    const r = await runNode(["bin/resc.js", "dev", "no-such.resource"], { timeout: 60_000 });
    expect(r.code).toBe(1);
    expect(errorLines(r.stderr).join("\n")).toMatch(/cannot read no-such\.resource/);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
