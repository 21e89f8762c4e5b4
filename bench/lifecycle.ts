/**
 * `npm run bench:lifecycle`: wall time of `resc pull` on Pagila and of
 * `resc migrate diff` on the reference schema, as a user runs them
 * (`node bin/resc.js …`, Node start included), five runs each, median
 * reported (docs/lifecycle.md). Needs a PostgreSQL server (DATABASE_URL
 * or 127.0.0.1:5432) for Pagila.
 */
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createBenchDatabase } from "./database.js";

function time(args: string[], cwd: string): number {
  const start = performance.now();
  execFileSync(process.execPath, args, { cwd, stdio: "ignore" });
  return performance.now() - start;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

const root = path.resolve(".");
const bin = path.join(root, "bin/resc.js");
const db = await createBenchDatabase();
const dir = await mkdtemp(path.join(os.tmpdir(), "resc-bench-life-"));
try {
  const pulls = Array.from({ length: 5 }, () =>
    time([bin, "pull", db.url, "--out", path.join(dir, "pagila.resource")], root),
  );
  await cp(path.join(root, "spec.resource"), path.join(dir, "schema.resource"));
  execFileSync(process.execPath, [bin, "migrate", "diff", "schema.resource", "--name", "init"], {
    cwd: dir,
    stdio: "ignore",
  });
  const diffs = Array.from({ length: 5 }, () => time([bin, "migrate", "diff", "schema.resource"], dir));
  const fmt = (xs: number[]): string =>
    `${xs.map((x) => Math.round(x)).join(", ")} ms; median ${Math.round(median(xs))} ms`;
  process.stdout.write(
    `resc pull (Pagila): ${fmt(pulls)}\nresc migrate diff (spec.resource, up to date): ${fmt(diffs)}\n`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
  await db.drop();
}
