/**
 * The repository needs nothing beside it: no tracked file
 * refers to the development shelf that sat beside it, and the Pagila dump
 * the tests load is inside the repository.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { PAGILA_DIR } from "../support/pagila.js";
import { run, runNode } from "../support/run.js";

const SCRIPT = path.resolve("scripts/check-standalone.mjs");

describe("a clone that stands alone", () => {
  it("has no tracked file referring to the shelf beside the repository", async () => {
    const r = await runNode([SCRIPT]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  it("finds such a reference when there is one", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "resc-standalone-"));
    try {
      await run("git", ["init", "-q", dir]);
      await run("mkdir", ["-p", path.join(dir, "scripts")]);
      await run("cp", [SCRIPT, path.join(dir, "scripts/")]);
      await writeFile(path.join(dir, "notes.md"), "see ../" + "shared" + "/spec/service-spec.md\n");
      await run("git", ["-C", dir, "add", "-A"]);
      const r = await runNode([path.join(dir, "scripts/check-standalone.mjs")]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("notes.md:1");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps the Pagila dump and its licence inside the repository", () => {
    expect(PAGILA_DIR.startsWith(path.resolve("."))).toBe(true);
    for (const f of ["pagila-schema.sql", "pagila-data.sql.gz", "LICENSE.txt"])
      expect(existsSync(PAGILA_DIR + f)).toBe(true);
  });
});
