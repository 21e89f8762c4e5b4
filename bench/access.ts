/**
 * `npm run bench:access`: what declared access rules and bearer tokens cost
 * (docs/decisions/1367-access-rules.md; bench/RESULTS.md, "Access rules and bearer tokens").
 *
 * 1. creates a database on the local server (or `DATABASE_URL`'s) and fills
 *    the tickets table of bench/access-service.ts (20 orgs × 2,000 rows),
 *    unless `--database-url` names one already filled;
 * 2. starts three servers, each the app `resc serve` runs in its own
 *    process on 127.0.0.1: the table with a declared tenant rule
 *    (`org_id = claim.org`), with the same rule as a hand-written BeforeQuery
 *    hook, and with no rule; one stand-in middleware sets the same principal
 *    in all three;
 * 3. checks that the three answer the filtered page and the read by id with
 *    the same rows, and that the declared and hook servers hide another
 *    org's row (404), and stops if not;
 * 4. warms them up, then loads them in turn (autocannon from this process,
 *    or `--generator wrk`), `--rounds` rounds of `--duration` seconds per
 *    request and server, a different server going first in each round, each
 *    after one second of load; reports requests/s and CPU per request (Node
 *    and PostgreSQL, from /proc), and per round the ratios declared / hook
 *    and declared / none, as the median with the rounds' spread;
 * 5. with the servers stopped, measures in this process resc's own Node work
 *    on the same requests of the three variants, the database answered from
 *    memory (bench/access-memory.ts), and the Node CPU a request spends
 *    verifying an HS256, RS256 or ES256 token (bench/access-jwt.ts);
 * 6. prints a Markdown report (also written to `--out FILE`).
 *
 * Options: `--duration 5 --rounds 4 --warmup 3 --connections 10`,
 * `--generator autocannon` (or `wrk`), `--only rules,memory,jwt` (the parts run),
 * `--requests 2000 --passes 8` (the in-process parts: requests per
 * measurement, passes), `--jwt-concurrency 1,10` (the requests in flight
 * the token part's requests are measured with), `--profile DIR` (a V8 CPU
 * profile of each server, written when it stops), `--database-url URL`
 * (reuse a filled database; it is not dropped).
 */
import { writeFile } from "node:fs/promises";
import os from "node:os";
import { parseArgs } from "node:util";
import pg from "pg";
import { buildDescriptor, compileSource, emitSql } from "../compiler/index.js";
import { formatDiagnostics } from "../grammar/index.js";
import { createPgExecutor } from "../runtime/exec/pg.js";
import { createTestDatabase } from "../test/support/db.js";
import {
  ACCESS_SCHEMA,
  ACCESS_SCHEMA_FILE,
  ACCESS_VARIANTS,
  BENCH_ORG,
  ORGS,
  TICKETS_PER_ORG,
  VARIANT_LABELS,
  orgId,
  seedSql,
  variantPaths,
  type AccessVariant,
} from "./access-service.js";
import { measureVerification } from "./access-jwt.js";
import { measureRulesInMemory } from "./access-memory.js";
import { cpuBetween, markCpu } from "./cpu.js";
import { GENERATORS, loadOnce, type Generator, type LoadOptions } from "./load.js";
import { median, rawTable, summarize, type ScenarioResult } from "./report.js";
import { firstDifference, getJson, sameAnswer } from "./scenarios.js";
import { buildServers, startServer, type ServerProcess } from "./servers.js";

const { values: opts } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    rounds: { type: "string", default: "4" },
    warmup: { type: "string", default: "3" },
    connections: { type: "string", default: "10" },
    generator: { type: "string", default: "autocannon" },
    only: { type: "string" },
    requests: { type: "string", default: "2000" },
    passes: { type: "string", default: "8" },
    "jwt-concurrency": { type: "string", default: "1,10" },
    profile: { type: "string" },
    out: { type: "string" },
    "database-url": { type: "string" },
  },
});

if (!(GENERATORS as string[]).includes(opts.generator)) {
  throw new Error(`--generator takes ${GENERATORS.join(" or ")}, not ${opts.generator}`);
}
const PARTS = ["rules", "memory", "jwt"] as const;
const parts = new Set(opts.only?.split(",") ?? PARTS);
for (const p of parts)
  if (!(PARTS as readonly string[]).includes(p)) throw new Error(`--only takes ${PARTS.join(", ")}, not ${p}`);
const load: LoadOptions = {
  duration: Number(opts.duration),
  connections: Number(opts.connections),
  generator: opts.generator as Generator,
};
const rounds = Number(opts.rounds);
const warmup = Number(opts.warmup);

function log(line: string): void {
  process.stderr.write(line + "\n");
}

const compiled = compileSource(ACCESS_SCHEMA, ACCESS_SCHEMA_FILE);
if (!compiled.ok) throw new Error(formatDiagnostics(compiled.diagnostics, ACCESS_SCHEMA));
const schema = compiled.schema;
const service = buildDescriptor(schema);

/** The benchmark's database: a fresh one filled with the tickets, or `--database-url`'s as it is. */
async function accessDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (opts["database-url"]) return { url: opts["database-url"], drop: async () => {} };
  const db = await createTestDatabase("bench_access");
  if (db.kind !== "pg" || db.url === undefined) {
    await db.drop();
    throw new Error("the benchmark needs a PostgreSQL server: set DATABASE_URL or run one at 127.0.0.1:5432");
  }
  try {
    await db.executor.script(emitSql(schema));
    await db.executor.script(seedSql());
  } catch (e) {
    await db.drop();
    throw e;
  }
  return { url: db.url, drop: () => db.drop() };
}

/** One query's first row, on a client of its own. */
async function queryOne<T>(url: string, text: string, values: unknown[] = []): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows[0] as T;
  } finally {
    await c.end();
  }
}

/** `median (min–max)` of `xs`, two decimals. */
function spread(xs: readonly number[]): string {
  return `${median(xs).toFixed(2)} (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})`;
}

/** The status of GET `base + path`. */
async function statusOf(base: string, path: string): Promise<number> {
  const res = await fetch(base + path);
  await res.arrayBuffer();
  return res.status;
}

/**
 * The rule part: the three servers loaded in interleaved rounds. Returns the
 * report's section.
 */
async function measureRules(url: string, readId: string, otherId: string): Promise<string> {
  const database = decodeURIComponent(new URL(url).pathname.slice(1));
  const servers = new Map<AccessVariant, ServerProcess>();
  try {
    for (const v of ACCESS_VARIANTS)
      servers.set(v, await startServer(VARIANT_LABELS[v], { databaseUrl: url, profileDir: opts.profile }));
    const labelled = [...servers.entries()];
    // The same rows for the same principal, and the rule in force where there is one.
    const results: ScenarioResult[] = [];
    for (const [name, which] of [
      ["filtered page", "page"],
      ["read by id", "read"],
    ] as const) {
      const path: Record<string, string> = {};
      const bodies: unknown[] = [];
      for (const [v, s] of labelled) {
        path[s.label] = variantPaths(v, readId)[which];
        const body = await getJson(s.base, path[s.label]!);
        bodies.push(which === "page" ? (body as { items: unknown }).items : body);
      }
      for (const [i, body] of bodies.entries()) {
        if (i > 0 && !sameAnswer(bodies[0], body))
          throw new Error(
            `${name}: ${labelled[0]![1].label} and ${labelled[i]![1].label} disagree at ${firstDifference(bodies[0], body)}`,
          );
      }
      if (which === "page" && (bodies[0] as unknown[]).length !== 25) throw new Error(`${name}: not a full page`);
      log(`same rows: ${name} (${path[VARIANT_LABELS.declared]})`);
      results.push({ name, path, samples: Object.fromEntries(labelled.map(([, s]) => [s.label, []])) });
    }
    for (const v of ["declared", "hook"] as const) {
      const status = await statusOf(servers.get(v)!.base, `/tickets/${otherId}`);
      if (status !== 404) throw new Error(`${VARIANT_LABELS[v]}: another org's ticket answered ${status}, not 404`);
    }
    const loadBefore = os.loadavg()[0]!;
    for (const r of results)
      for (const [, s] of labelled) await loadOnce(s.base + r.path[s.label], { ...load, duration: warmup });
    for (let round = 1; round <= rounds; round++) {
      const shift = (round - 1) % labelled.length;
      const order = [...labelled.slice(shift), ...labelled.slice(0, shift)];
      for (const r of results) {
        for (const [, s] of order) {
          const target = s.base + r.path[s.label];
          await loadOnce(target, { ...load, duration: 1 });
          const before = markCpu(s.pid, database);
          const sample = await loadOnce(target, load);
          const cpu = cpuBetween(before, markCpu(s.pid, database));
          if (cpu && sample.requests > 0)
            sample.cpu = {
              server: (cpu.server * 1000) / sample.requests,
              database: (cpu.database * 1000) / sample.requests,
            };
          if (sample.failures > 0) throw new Error(`${s.label}, ${r.name}: ${sample.failures} failed requests`);
          r.samples[s.label]!.push(sample);
          log(
            `round ${round} ${r.name} ${s.label}: ${sample.rps.toFixed(0)} req/s, Node ${sample.cpu?.server.toFixed(0) ?? "?"} µs/req`,
          );
        }
      }
    }
    const loadAfter = os.loadavg()[0]!;
    const [declared, hook, none] = ACCESS_VARIANTS.map((v) => VARIANT_LABELS[v]);
    const lines = [
      `Load: ${load.generator === "wrk" ? "wrk -t1" : "autocannon"}, ${load.connections} connections, ${warmup} s warm-up, then ${rounds} alternating rounds of ${load.duration} s per request and server.`,
      `Ratios: per round (the three servers loaded one after the other), then the median of the rounds and their min–max. CPU µs/req from /proc, Node (the server) and PostgreSQL (the database's backends).`,
      `System load average (1 min) when measuring began: ${loadBefore.toFixed(2)}; when it ended: ${loadAfter.toFixed(2)}.`,
      "",
      "| request | req/s declared / hook / none | Node CPU µs/req declared / hook / none | PostgreSQL CPU µs/req declared / hook / none | Node CPU declared / hook | Node CPU declared / none | req/s declared / hook | req/s declared / none |",
      "|---|---|---|---|---:|---:|---:|---:|",
    ];
    for (const r of results) {
      const [d, h, n] = [declared, hook, none].map((l) => r.samples[l]!);
      const sums = [d, h, n].map((x) => summarize(x));
      const per = (a: typeof d, b: typeof d, f: (s: (typeof d)[number]) => number | undefined): number[] =>
        a.map((s, i) => (f(s) ?? NaN) / (f(b[i]!) ?? NaN));
      const node = (s: (typeof d)[number]): number | undefined => s.cpu?.server;
      const rps = (s: (typeof d)[number]): number => s.rps;
      const triple = (f: (s: ReturnType<typeof summarize>) => number | undefined): string =>
        sums.map((s) => (f(s) === undefined ? "–" : f(s)!.toFixed(0))).join(" / ");
      lines.push(
        `| ${r.name} \`${r.path[declared]}\` | ${triple((s) => s.rps)} | ${triple((s) => s.cpu?.server)} | ` +
          `${triple((s) => s.cpu?.database)} | ${spread(per(d, h, node))} | ${spread(per(d, n, node))} | ` +
          `${spread(per(d, h, rps))} | ${spread(per(d, n, rps))} |`,
      );
    }
    lines.push(
      "",
      `The no-rule server's page names the org in its query (\`${results[0]!.path[none]}\`), so all three read the same rows with the same plan.`,
      "",
      "Every round:",
      "",
      rawTable(results),
    );
    return lines.join("\n");
  } finally {
    for (const s of servers.values()) await s.stop();
  }
}

async function main(): Promise<void> {
  if (parts.has("rules")) {
    log("compiling the servers (tsc)…");
    await buildServers();
  }
  log("filling the tickets…");
  const db = await accessDatabase();
  try {
    const readId = (
      await queryOne<{ id: string }>(
        db.url,
        "SELECT id::text AS id FROM tickets WHERE org_id = $1 ORDER BY id OFFSET 1000 LIMIT 1",
        [BENCH_ORG],
      )
    ).id;
    const otherId = (
      await queryOne<{ id: string }>(
        db.url,
        "SELECT id::text AS id FROM tickets WHERE org_id = $1 ORDER BY id LIMIT 1",
        [orgId(2)],
      )
    ).id;
    const sections: string[] = [];
    if (parts.has("rules"))
      sections.push(
        "## Declared rule, hand-written hook, no rule",
        "",
        await measureRules(db.url, readId, otherId),
        "",
      );
    if (parts.has("memory") || parts.has("jwt")) {
      const executor = createPgExecutor({ connectionString: db.url });
      try {
        await executor.warmUp();
        const common = {
          service,
          db: executor,
          readId,
          requests: Number(opts.requests),
          passes: Number(opts.passes),
          log,
        };
        if (parts.has("memory"))
          sections.push(
            "## The same, in process, the database answered from memory",
            "",
            await measureRulesInMemory(common),
            "",
          );
        if (parts.has("jwt"))
          sections.push(
            "## Bearer token verification",
            "",
            await measureVerification({ ...common, concurrency: opts["jwt-concurrency"].split(",").map(Number) }),
            "",
          );
      } finally {
        await executor.close();
      }
    }
    const cpus = os.cpus();
    const version = (await queryOne<{ v: string }>(db.url, "SELECT current_setting('server_version') AS v")).v;
    const report = [
      "# Benchmark: access rules and bearer tokens",
      "",
      `Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? "unknown CPU"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; ` +
        `Node ${process.version}; PostgreSQL ${version} on the same machine.`,
      `Table: \`tickets\` (bench/access-service.ts), ${ORGS} orgs × ${TICKETS_PER_ORG} rows, each org's rows spread over the table; ` +
        `the principal a member of one org; the read by id \`/tickets/${readId}\`, one of its tickets.`,
      "",
      ...sections,
    ].join("\n");
    process.stdout.write(report);
    if (opts.out) await writeFile(opts.out, report);
  } finally {
    await db.drop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
