/**
 * `npm run bench:compiler`: the compiler at 100, 500 and 1,000 tables
 * (issue #13): wall time and peak memory of `resc check`, `resc openapi`
 * and `resc generate` on the synthetic schema (bench/synthetic.ts), and of
 * `resc check` on Pagila, each a fresh `node bin/resc.js …` process as a
 * user runs it. Peak memory from GNU time when installed, else the child's
 * own resource usage. Prints a Markdown table (`--out FILE` writes it too).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { syntheticSchema } from "./synthetic.js";

const { values: opts } = parseArgs({
  options: { sizes: { type: "string", default: "100,500,1000" }, out: { type: "string" } },
});
const bin = path.resolve("bin/resc.js");
const gnuTime = existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

/** Seconds and peak RSS in MB of one command. */
function measure(args: string[], cwd: string): { seconds: number; mb: number | undefined } {
  const start = performance.now();
  if (gnuTime) {
    const r = spawnSync(gnuTime, ["-f", "%M", process.execPath, bin, ...args], {
      cwd,
      encoding: "utf8",
      maxBuffer: 1 << 30,
    });
    const kb = Number(r.stderr.trim().split("\n").pop());
    return { seconds: (performance.now() - start) / 1000, mb: Number.isFinite(kb) ? Math.round(kb / 1024) : undefined };
  }
  execFileSync(process.execPath, [bin, ...args], { cwd, stdio: "ignore", maxBuffer: 1 << 30 });
  return { seconds: (performance.now() - start) / 1000, mb: undefined };
}

const fmt = (m: { seconds: number; mb: number | undefined }): string =>
  `${m.seconds.toFixed(2)} s${m.mb !== undefined ? `, ${m.mb} MB` : ""}`;
const dir = await mkdtemp(path.join(os.tmpdir(), "resc-bench-compiler-"));
const rows = ["| tables | resc check | resc openapi (size) | resc generate |", "|---:|---|---|---|"];
try {
  for (const n of opts.sizes.split(",").map(Number)) {
    const file = path.join(dir, `s${n}.resource`);
    await writeFile(
      file,
      syntheticSchema(n).replace("api {", `generate {\n  dir     = "gen${n}"\n  package = "app"\n}\n\napi {`),
    );
    const check = measure(["check", file], dir);
    const openapi = measure(["openapi", file], dir);
    const document = execFileSync(process.execPath, [bin, "openapi", file], {
      cwd: dir,
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 1 << 30,
    });
    const size = Buffer.byteLength(document);
    const generate = measure(["generate", file], dir);
    rows.push(
      `| ${n} | ${fmt(check)} | ${fmt(openapi)} (${(size / 1e6).toFixed(1)} MB, ${Math.round(size / n / 1000)} KB/table) | ${fmt(generate)} |`,
    );
    process.stderr.write(`${n} tables done\n`);
  }
  const pagila = measure(["check", path.resolve("fixtures/pagila/pagila.resource")], dir);
  rows.push("", `\`resc check fixtures/pagila/pagila.resource\`: ${fmt(pagila)}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
const report = rows.join("\n") + "\n";
process.stdout.write(report);
if (opts.out) await writeFile(opts.out, report);
