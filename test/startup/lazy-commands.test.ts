/**
 * A command loads only what it uses (decision 1323): `resc check`
 * must not load prettier, pg, Hono or PGlite, and `resc --help` not even the
 * grammar. Each case runs the real binary with a resolve hook that records
 * every module the process resolves (test/support/loaded-modules.ts reads
 * the bundle's files as the modules esbuild put in them).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadedModules, TRACE_LOADS_IMPORT } from "../support/loaded-modules.js";

const root = path.resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(path.join(os.tmpdir(), "resc-trace-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The package names (or `dist/…` paths) a `resc` run resolved. */
function loaded(args: string[]): { packages: Set<string>; own: Set<string> } {
  const file = path.join(dir, `${args.join("-").replace(/\W+/g, "_")}.txt`);
  execFileSync(process.execPath, [...TRACE_LOADS_IMPORT, path.join(root, "bin/resc.js"), ...args], {
    cwd: root,
    env: { ...process.env, RESC_TRACE_LOADS: file },
    stdio: ["ignore", "ignore", "ignore"],
  });
  return loadedModules(file);
}

const HEAVY = ["prettier", "pg", "hono", "@hono/node-server", "@electric-sql/pglite", "pino"];

describe("start-up: a command loads only what it uses", () => {
  it("resc check loads the grammar and the validator, none of prettier, pg, Hono, PGlite", () => {
    const { packages, own } = loaded(["check", "spec.resource"]);
    expect(packages).toContain("chevrotain");
    expect(own).toContain("dist/compiler/validate/index.js");
    for (const p of HEAVY) expect(packages, p).not.toContain(p);
    expect([...own].filter((f) => f.startsWith("dist/compiler/backends/"))).toEqual([]);
    // The validator shares the pure query grammar with the runtime; the executors and HTTP layer stay unloaded.
    expect([...own].filter((f) => /^dist\/runtime\/(exec|http|ops|sql|hooks)\//.test(f))).toEqual([]);
  });

  it("resc --help loads no grammar and no backend", () => {
    const { packages, own } = loaded(["--help"]);
    expect(packages).toContain("@oclif/core");
    expect(packages).not.toContain("chevrotain");
    for (const p of HEAVY) expect(packages, p).not.toContain(p);
    expect([...own].filter((f) => !f.startsWith("dist/cli/"))).toEqual([]);
  });

  it("resc sql loads the SQL backend but not the Hono one", () => {
    const { packages, own } = loaded(["sql", "spec.resource"]);
    expect(own).toContain("dist/compiler/backends/sql/index.js");
    expect([...own].filter((f) => f.startsWith("dist/compiler/backends/hono/"))).toEqual([]);
    for (const p of HEAVY) expect(packages, p).not.toContain(p);
  });
});
