/**
 * A real restart under write load (docs/decisions/0910-connection-faults.md): a cluster of the test's
 * own (`initdb`, `pg_ctl`) serves a `resc dev` process while 8 writers and
 * 4 readers send requests; its backends are terminated
 * (`pg_terminate_backend`), then the server is restarted with `-m fast`,
 * then with `-m immediate`. Afterwards:
 *
 * - the resc process is still running and serves again;
 * - every write answered 201 is in the database;
 * - every other answer was a 503 problem document (reads 200 or 503), or,
 *   for a write whose COMMIT lost its answer, a 500 `outcome-unknown`, never
 *   a 503 "try again" for a write that may be stored
 *   (docs/decisions/1331-commit-outcome-unknown.md).
 *
 * Skipped, saying so, where PostgreSQL's server binaries are missing.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileFile } from "../support/service.js";
import { postgresBinDir, startCluster, type TestCluster } from "../support/cluster.js";
import { startResc, type ServeProcess } from "../support/serve-process.js";

const FILE = "test/faults/fixtures/faults.resource";
const binaries = postgresBinDir();
if (!binaries) console.warn("restart.test.ts skipped: initdb/pg_ctl not found (set PG_BINDIR)");

let cluster: TestCluster | undefined;
let dev: ServeProcess | undefined;
let base = "";

beforeAll(async () => {
  if (!binaries) return;
  cluster = await startCluster();
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("CREATE DATABASE resc");
  await admin.end();
  const db = new pg.Client({ connectionString: cluster.url("resc") });
  await db.connect();
  await db.query((await compileFile(FILE)).ddl);
  await db.end();
  dev = await startResc("dev", FILE, ["--database-url", cluster.url("resc")]);
  base = dev.base;
}, 120_000);

afterAll(async () => {
  await dev?.kill();
  await cluster?.destroy();
});

interface Outcome {
  status: number;
  type?: string;
  id?: string;
  name?: string;
}

/** One request; a refused or reset connection to resc itself counts as status 0 (the process is gone). */
async function send(method: string, path: string, body?: unknown): Promise<Outcome> {
  try {
    const res = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await res.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    return {
      status: res.status,
      type: typeof json?.type === "string" ? json.type : undefined,
      id: json?.id !== undefined ? String(json.id) : undefined,
      name: typeof json?.name === "string" ? json.name : undefined,
    };
  } catch {
    return { status: 0 };
  }
}

/** `pg_terminate_backend` on every connection resc holds (each gets FATAL 57P01). */
async function terminateBackends(): Promise<void> {
  const admin = new pg.Client({ connectionString: cluster!.url() });
  await admin.connect();
  try {
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'resc'");
  } finally {
    await admin.end();
  }
}

describe.skipIf(!binaries)("a real PostgreSQL restarted under write load", () => {
  it("keeps the process up, keeps every acknowledged write, answers the rest 503", async () => {
    let stop = false;
    const outcomes: Outcome[] = [];
    const writer = async (w: number): Promise<void> => {
      for (let n = 0; !stop; n++) outcomes.push(await send("POST", "/naps", { name: `w${w}-${n}` }));
    };
    const reader = async (): Promise<void> => {
      while (!stop) outcomes.push(await send("GET", "/naps?sort=-id&per_page=5"));
    };
    const load = [...Array.from({ length: 8 }, (_, w) => writer(w)), ...Array.from({ length: 4 }, () => reader())];
    const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
    try {
      await pause(800);
      await terminateBackends();
      await pause(600);
      await cluster!.restart("fast");
      await pause(1200);
      await cluster!.restart("immediate");
      await pause(1200);
    } finally {
      stop = true;
      await Promise.all(load);
    }
    expect(dev!.child.exitCode, dev!.output()).toBeNull();
    expect(
      outcomes.filter((o) => o.status === 0),
      "requests resc never answered",
    ).toEqual([]);
    const unknown = outcomes.filter((o) => o.status === 500);
    for (const o of unknown) expect(o.type).toBe("/problems/outcome-unknown");
    const unexpected = outcomes.filter((o) => ![200, 201, 500, 503].includes(o.status));
    expect(unexpected).toEqual([]);
    const refused = outcomes.filter((o) => o.status === 503);
    expect(refused.length, "the restarts were felt").toBeGreaterThan(0);
    for (const o of refused) expect(o.type).toMatch(/^\/problems\/database-/);

    const acknowledged = outcomes.filter((o) => o.status === 201);
    expect(acknowledged.length).toBeGreaterThan(0);
    const db = new pg.Client({ connectionString: cluster!.url("resc") });
    await db.connect();
    try {
      const { rows } = await db.query<{ id: string; name: string }>("SELECT id::text, name FROM naps");
      const stored = new Map(rows.map((r) => [r.id, r.name]));
      const lost = acknowledged.filter((o) => stored.get(o.id!) !== o.name);
      expect(lost, "acknowledged writes missing after the restarts").toEqual([]);
    } finally {
      await db.end();
    }
    // Served again without a restart of resc.
    const after = await send("POST", "/naps", { name: "after" });
    expect(after.status).toBe(201);
    // One line per fault, no stack traces.
    expect(dev!.output()).not.toMatch(/^\s+at /m);
  }, 120_000);
});
