/**
 * A part of `npm run bench:access` (bench/access.ts): resc's own Node work
 * on the filtered page and the read by id of the three variants of
 * bench/access-service.ts, without the network and the database, where a
 * difference of a microsecond shows that the HTTP rounds, on a shared
 * machine, cannot resolve. In this process, each variant is the bare API app
 * (`mountService`, the stand-in middleware in front) over an executor that
 * sends each statement to PostgreSQL once and then answers it from memory;
 * requests go through the app's `fetch` one at a time. A second, identical
 * hook app is measured beside them: the difference between the two hook
 * apps is what the measurement cannot resolve. Every pass measures each app
 * and request once, in an order that turns; the first pass is not counted.
 * CPU from `process.cpuUsage()`.
 */
import { Hono } from "hono";
import type { Executor, QueryResult, SqlStatement } from "../runtime/exec/executor.js";
import type { ServiceDescriptor } from "../runtime/descriptor.js";
import { mountService } from "../runtime/http/mount.js";
import {
  ACCESS_VARIANTS,
  TENANT_HOOKS,
  VARIANT_LABELS,
  declaredService,
  standInAuthentication,
  tenantHookData,
  variantPaths,
  type AccessVariant,
} from "./access-service.js";
import { median } from "./report.js";

/** Options of {@link measureRulesInMemory}. */
export interface InMemoryOptions {
  /** The compiled tickets descriptor, without `auth` or `access`. */
  service: ServiceDescriptor;
  /** The loaded database: each statement's first answer. */
  db: Executor;
  readId: string;
  /** Requests per measurement. */
  requests: number;
  /** Passes, after one that is not counted. */
  passes: number;
  log: (line: string) => void;
}

/**
 * An executor answering each statement text with the rows PostgreSQL gave
 * it the first time (the bench sends the same requests again and again).
 */
export function replayingExecutor(db: Executor): Executor {
  const answers = new Map<string, Promise<QueryResult>>();
  const replaying: Executor = {
    limits: { capacity: 10, acquireTimeoutMillis: 5000 },
    query(stmt: SqlStatement): Promise<QueryResult> {
      const key = `${stmt.text}\u0000${JSON.stringify(stmt.values ?? [])}`;
      let answer = answers.get(key);
      if (answer === undefined) answers.set(key, (answer = db.query(stmt)));
      return answer;
    },
    transaction: (fn) => fn(replaying),
    script: (sql) => db.script(sql),
    close: async () => {},
  };
  return replaying;
}

/** The bare API app of `variant` over `db`, the stand-in middleware in front. */
function bareVariantApp(variant: AccessVariant, service: ServiceDescriptor, db: Executor): Hono {
  const app = new Hono();
  app.use(standInAuthentication);
  const mounted =
    variant === "declared"
      ? mountService(app, declaredService(service), { db })
      : variant === "hook"
        ? mountService(app, service, { db, hooks: TENANT_HOOKS, hookData: tenantHookData })
        : mountService(app, service, { db });
  if (!mounted.ok) throw new Error(mounted.errors.map((e) => `${e.resource}: ${e.message}`).join("\n"));
  return app;
}

/** `median (min–max)` of `xs`. */
function spread(xs: readonly number[], digits: number): string {
  return `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
}

/**
 * Runs the passes and returns the report's section (Markdown).
 * @throws Error when a variant answers other than 200, or another body than the declared one
 */
export async function measureRulesInMemory(o: InMemoryOptions): Promise<string> {
  const db = replayingExecutor(o.db);
  // Each variant's app, and the hook's twice (`again`): the two hook apps differ by nothing.
  const apps = [
    ...ACCESS_VARIANTS.map((v) => ({ variant: v, again: false, app: bareVariantApp(v, o.service, db) })),
    { variant: "hook" as const, again: true, app: bareVariantApp("hook", o.service, db) },
  ];
  const requests = (["page", "read"] as const).flatMap((which) =>
    apps.map((a) => ({ which, ...a, path: variantPaths(a.variant, o.readId)[which], samples: [] as number[] })),
  );
  const send = async (r: (typeof requests)[number]): Promise<string> => {
    const res = await r.app.fetch(new Request(`http://127.0.0.1${r.path}`));
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${r.variant} ${r.path}: ${res.status} ${text.slice(0, 200)}`);
    return text;
  };
  for (const which of ["page", "read"] as const) {
    const bodies = await Promise.all(requests.filter((r) => r.which === which).map(send));
    // The page's links name its own query; the rows must be the same.
    const rows = bodies.map((b) => JSON.stringify((JSON.parse(b) as { items?: unknown }).items ?? JSON.parse(b)));
    if (rows.some((x) => x !== rows[0])) throw new Error(`in memory, ${which}: the variants answer different rows`);
  }
  for (let pass = 0; pass <= o.passes; pass++) {
    const shift = pass % requests.length;
    for (const r of [...requests.slice(shift), ...requests.slice(0, shift)]) {
      const before = process.cpuUsage();
      for (let i = 0; i < o.requests; i++) await send(r);
      const used = process.cpuUsage(before);
      if (pass > 0) r.samples.push((used.user + used.system) / o.requests);
    }
    o.log(pass === 0 ? "in memory: warm-up pass done" : `in memory: pass ${pass} of ${o.passes} done`);
  }
  const lines = [
    `Node CPU µs per request of the bare API app, the database answered from memory, one request at a time: median of ${o.passes} passes of ${o.requests} (min–max); ratios and differences per pass.`,
    "",
    `| request | ${ACCESS_VARIANTS.map((v) => VARIANT_LABELS[v]).join(" / ")} | declared − hook µs | the hook app again − hook µs | declared / hook | declared / none |`,
    "|---|---|---:|---:|---:|---:|",
  ];
  for (const which of ["page", "read"] as const) {
    const of = (v: AccessVariant, again = false): number[] =>
      requests.find((r) => r.which === which && r.variant === v && r.again === again)!.samples;
    const [d, h, n, h2] = [of("declared"), of("hook"), of("none"), of("hook", true)];
    lines.push(
      `| ${which === "page" ? "filtered page" : "read by id"} | ${[d, h, n].map((x) => median(x).toFixed(1)).join(" / ")} | ` +
        `${spread(
          d.map((x, i) => x - h[i]!),
          1,
        )} | ${spread(
          h2.map((x, i) => x - h[i]!),
          1,
        )} | ${spread(
          d.map((x, i) => x / h[i]!),
          3,
        )} | ${spread(
          d.map((x, i) => x / n[i]!),
          3,
        )} |`,
    );
  }
  return lines.join("\n");
}
