/**
 * `resc serve` (docs/deploy.md): refuses a database that
 * lacks the schema; serves with request ids and JSON log lines that carry
 * no credential; `/live`, `/ready` (503 naming what is wrong) and
 * `/metrics` in the Prometheus text format; on SIGTERM, every request it
 * had accepted is answered before it exits 0. A hooks module's
 * ProblemError is answered as its problem document, though the command
 * carries its own copy of the runtime (decision 1325).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { freePort } from "../support/ports.js";
import { startServe } from "../support/serve-process.js";
import { runNode } from "../support/run.js";
import { compileFile } from "../support/service.js";

const FILE = "test/faults/fixtures/faults.resource";
const db: TestDatabase = await createTestDatabase("serve");
let child: ChildProcess | undefined;
let base = "";
let stdout = "";

async function start(): Promise<ChildProcess> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  stdout = "";
  const c = spawn(
    process.execPath,
    [
      "bin/resc.js",
      "serve",
      FILE,
      "--database-url",
      db.url!,
      "--port",
      String(port),
      "--shutdown-timeout",
      "5000",
      "--drain-seconds",
      "0",
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  c.stdout!.on("data", (d) => (stdout += String(d)));
  c.stderr!.on("data", (d) => (stdout += String(d)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`resc serve did not start: ${stdout}`)), 30_000);
    c.once("exit", (code) => reject(new Error(`resc serve exited with ${code}: ${stdout}`)));
    c.stdout!.on("data", () => {
      if (stdout.includes('"msg":"serving')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return c;
}

/** The JSON log lines printed so far. */
const lines = (): Record<string, unknown>[] =>
  stdout
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  if (db.kind !== "pg") return;
  const { ddl } = await compileFile(FILE);
  await db.executor.script(
    ddl + "\nINSERT INTO naps (name) VALUES ('first'), ('0.4'); INSERT INTO pins (label) VALUES ('a');",
  );
  child = await start();
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await db.drop();
});

describe.skipIf(db.kind !== "pg")("resc serve", () => {
  it("refuses a database that lacks what the schema declares", async () => {
    const empty = await createTestDatabase("serve_empty");
    try {
      const r = await runNode(["bin/resc.js", "serve", FILE, "--database-url", empty.url!, "--port", "0"], {
        timeout: 60_000,
      });
      expect(r.code).toBe(1);
      // One JSON line, a log collector's to read (docs/deploy.md, "Logs").
      const said = r.stderr
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(said).toHaveLength(1);
      expect(said[0]!.level).toBe(60);
      expect(said[0]!.msg).toMatch(/does not match/);
      expect(said[0]!.msg).toMatch(/table "naps" is missing/);
      expect(said[0]!.msg).toMatch(/resc migrate deploy/);
    } finally {
      await empty.drop();
    }
  });

  it("answers /live and /ready", async () => {
    expect((await fetch(`${base}/live`)).status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", problems: [] });
  });

  it("logs one JSON line per request with its id, and no credential", async () => {
    const r = await fetch(`${base}/naps?token=s3cret&name=eq.first`, {
      headers: { "x-request-id": "trace-123", authorization: "Bearer very-secret" },
    });
    // `token` is no parameter of /naps: a 400, logged like any other answer.
    expect(r.status).toBe(400);
    expect(r.headers.get("x-request-id")).toBe("trace-123");
    const other = await fetch(`${base}/pins`);
    expect(other.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((res) => setTimeout(res, 100));
    const line = lines().find((l) => l.req_id === "trace-123");
    expect(line).toMatchObject({ msg: "request", method: "GET", route: "/naps", status: 400 });
    expect(line!.target).toBe("/naps?token=REDACTED&name=eq.first");
    expect(stdout).not.toMatch(/s3cret|very-secret/);
  });

  it("sends one X-Request-Id beside a write's own headers, and replaces an unusable one", async () => {
    // The caller's id is read from Node's parsed headers (decision 1341) and must come back once beside the
    // answer's own headers; a second copy would show here as "id-7, id-7".
    const created = await fetch(`${base}/pins`, {
      method: "POST",
      headers: { "x-request-id": "id-7", "content-type": "application/json" },
      body: JSON.stringify({ label: "request id" }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBe("id-7");
    expect(created.headers.get("etag")).toMatch(/^"/);
    expect(created.headers.get("location")).toMatch(/^\/pins\/\d+$/);
    const missing = await fetch(`${base}/pins/999999`, { headers: { "x-request-id": "has spaces" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/problem+json");
    expect(missing.headers.get("x-request-id")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
  });

  it("sends the replaying request's own id on an idempotent replay", async () => {
    // A replay is an answer the handler builds itself from the stored one (decision 1350): it carries the id of
    // the request it answers, once, and never the id stored with the first answer.
    const post = (id: string): Promise<Response> =>
      fetch(`${base}/pins`, {
        method: "POST",
        headers: { "x-request-id": id, "content-type": "application/json", "idempotency-key": "serve-replay-1" },
        body: JSON.stringify({ label: "replayed" }),
      });
    const first = await post("first-8");
    expect(first.status).toBe(201);
    expect(first.headers.get("x-request-id")).toBe("first-8");
    const again = await post("again-9");
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).toBe("again-9");
    expect(await again.json()).toEqual(await first.json());
  });

  it("serves Prometheus metrics by route template, with the pool's figures", async () => {
    await fetch(`${base}/naps/1`);
    await fetch(`${base}/naps`);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toMatch(/resc_http_requests_total\{method="GET",route="\/naps\/:id",status="200"\} \d+/);
    expect(text).toMatch(
      /resc_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/naps",status="200"\}/,
    );
    expect(text).toMatch(/resc_pool_connections \d+/);
    expect(text).toMatch(/resc_pool_waiting_requests 0/);
  });

  it("says not ready, naming the problem, when the database no longer matches", async () => {
    await db.executor.script("ALTER TABLE pins RENAME COLUMN label TO label_old");
    try {
      const ready = await fetch(`${base}/ready`);
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as { problems: string[] }).problems).toContain(
        'schema: column "pins.label" is missing',
      );
    } finally {
      await db.executor.script("ALTER TABLE pins RENAME COLUMN label_old TO label");
    }
  });

  it("on SIGTERM, answers every request it accepted, then exits 0", async () => {
    // Each request sleeps 0.4 s in the database: they are all in flight when the signal comes.
    const pending = Array.from({ length: 8 }, () =>
      fetch(`${base}/naps?name=eq.0.4&select=id,nap`).then(
        (r) => r.status,
        () => 0,
      ),
    );
    await new Promise((res) => setTimeout(res, 150));
    const exited = new Promise<number | null>((res) => child!.once("exit", (code) => res(code)));
    child!.kill("SIGTERM");
    expect(await Promise.all(pending)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/stopping: no new connections/);
  });
});

describe.skipIf(db.kind !== "pg")("resc serve --workers 2", () => {
  it("starts two processes on one port, serves, and stops them both on SIGTERM", async () => {
    const port = await freePort();
    let out = "";
    const c = spawn(
      process.execPath,
      [
        "bin/resc.js",
        "serve",
        FILE,
        "--database-url",
        db.url!,
        "--port",
        String(port),
        "--workers",
        "2",
        "--drain-seconds",
        "0",
      ],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    c.stdout!.on("data", (d) => (out += String(d)));
    c.stderr!.on("data", (d) => (out += String(d)));
    try {
      for (let i = 0; i < 300 && (out.match(/"msg":"serving/g) ?? []).length < 2; i++)
        await new Promise((r) => setTimeout(r, 50));
      const pids = new Set((out.match(/"pid":(\d+)[^\n]*"msg":"serving/g) ?? []).map((l) => /"pid":(\d+)/.exec(l)![1]));
      expect(pids.size, out).toBe(2);
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => fetch(`http://127.0.0.1:${port}/pins`).then((r) => r.status)),
      );
      expect(answers.every((s) => s === 200)).toBe(true);
      const exited = new Promise<number | null>((res) => c.once("exit", (code) => res(code)));
      c.kill("SIGTERM");
      expect(await exited).toBe(0);
    } finally {
      if (c.exitCode === null) c.kill("SIGKILL");
    }
  });
});

describe.skipIf(db.kind !== "pg")("resc serve --hooks", () => {
  it("answers a hook's ProblemError, imported from resc/runtime, with its problem document", async () => {
    const node = await startServe(FILE, ["--database-url", db.url!, "--hooks", "test/fixtures-hooks/refuse.ts"]);
    try {
      expect((await fetch(`${node.base}/pins`)).status).toBe(200);
      const refused = await fetch(`${node.base}/pins`, { headers: { "x-deny": "1" } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(await refused.json()).toMatchObject({ type: "/problems/forbidden", status: 403 });
    } finally {
      await node.stop();
    }
  });
});

describe.skipIf(db.kind !== "pg")("two resc serve nodes on one database", () => {
  it("continue each other's pages: a cursor from one node works on the other", async () => {
    const nodes = await Promise.all([0, 1].map(() => startServe(FILE, ["--database-url", db.url!])));
    try {
      const first = (await (await fetch(`${nodes[0]!.base}/naps?sort=id&per_page=1`)).json()) as {
        items: { id: number }[];
        next_cursor: string;
      };
      const second = await fetch(
        `${nodes[1]!.base}/naps?sort=id&per_page=1&cursor=${encodeURIComponent(first.next_cursor)}`,
      );
      expect(second.status).toBe(200);
      const page = (await second.json()) as { items: { id: number }[] };
      expect(page.items[0]!.id).toBeGreaterThan(first.items[0]!.id);
    } finally {
      await Promise.all(nodes.map((n) => n.stop()));
    }
  });
});
