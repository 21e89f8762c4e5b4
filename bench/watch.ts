/**
 * `npm run bench:watch`: the time from saving a schema to the new route
 * answering under `resc dev --watch` on the embedded database (docs/lifecycle.md
 * §4). Adds a table five times, each time measuring from the write to the
 * first 200 on the new resource; prints each time and the median.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const BASE = `table notes {
  id   bigint @primary_key @default(identity)
  body text

  resource "/notes" { ops = [crud, list] }
}
`;
const table = (i: number): string => `
table t${i} {
  id    bigint @primary_key @default(identity)
  label text

  resource "/t${i}" { ops = [crud, list] }
}
`;

const dir = await mkdtemp(path.join(os.tmpdir(), "resc-bench-watch-"));
const file = path.join(dir, "schema.resource");
await writeFile(file, BASE);
const port = 20000 + Math.floor(Math.random() * 20000);
const child = spawn(
  process.execPath,
  [path.resolve("bin/resc.js"), "dev", "schema.resource", "--watch", "--port", String(port), "--data-dir", "db"],
  {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let out = "";
child.stdout.on("data", (d) => (out += String(d)));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
try {
  while (!out.includes("serving")) await sleep(50);
  let schema = BASE;
  const times: number[] = [];
  for (let i = 1; i <= 5; i++) {
    schema += table(i);
    const start = performance.now();
    await writeFile(file, schema);
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/t${i}`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      await sleep(5);
    }
    times.push(Math.round(performance.now() - start));
    await sleep(300);
  }
  const median = [...times].sort((a, b) => a - b)[2];
  process.stdout.write(`save → new route answering (ms): ${times.join(", ")}; median ${median}\n`);
} finally {
  child.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
}
