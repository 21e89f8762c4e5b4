/**
 * The change feed (docs/decisions/1337-change-feed.md), against
 * PostgreSQL and against PGlite: `GET /<resource>/events` streams the
 * changes a list with the same filters would show, scoped per subscriber,
 * hidden columns never sent, writes by anyone (psql included) delivered,
 * resumable by `Last-Event-ID` without gap or repeat, bounded for slow readers.
 */
import { PGlite } from "@electric-sql/pglite";
import { PositionSeal } from "../../runtime/events/sealed-position.js";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import { cmp } from "../../runtime/predicate.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";
import { openStream, serveService, type Served, type Stream } from "../support/sse.js";
import { HttpClient, followEventStream } from "../../compiler/backends/client/core/http.js";

const SCHEMA = `
enum state { todo done }
table tasks {
  id     bigint @primary_key @default(identity)
  team   text   @filterable
  state  state  @default(todo) @filterable
  title  text   @filterable @searchable
  tags   text[] @filterable
  secret text?  @hidden
  @@index([tags], using: gin)
  resource "/tasks" { ops = [crud, list], events = true }
}
table notes {
  id   bigint @primary_key @default(identity)
  body text
  resource "/notes" { ops = [crud, list] }
}
`;

const { service, ddl } = compileText(SCHEMA, "feed.resource");
const execFileAsync = promisify(execFile);

interface Setup {
  db: Executor;
  served: Served;
  url: string;
  sql(text: string): Promise<void>;
  post(body: Record<string, unknown>, headers?: Record<string, string>): Promise<{ id: number }>;
  drop(): Promise<void>;
}

/**
 * The feed served over `db`, each subscriber confined to the team its `x-team` header names. `psql`, when
 * given, is the database's URL: writes "outside resc" then go through the real psql program.
 */
async function setUp(
  db: Executor,
  drop: () => Promise<void>,
  options: { bufferEvents?: number; psql?: string } = {},
): Promise<Setup> {
  await db.script(ddl);
  const served = await serveService(service as ServiceDescriptor, {
    db,
    events: { heartbeatMs: 200, pollMs: 200, ...(options.bufferEvents ? { bufferEvents: options.bufferEvents } : {}) },
    hooks: {
      beforeQuery: {
        tasks: (ctx) => {
          const team = ctx.http?.req.header("x-team");
          return team ? cmp("team", "eq", team) : undefined;
        },
      },
    },
  });
  return {
    db,
    served,
    url: served.url,
    sql: options.psql
      ? async (text) => {
          await execFileAsync("psql", [options.psql!, "-v", "ON_ERROR_STOP=1", "-q", "-c", text]);
        }
      : (text) => db.script(text),
    async post(body, headers = {}) {
      const r = await fetch(`${served.url}/tasks`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      expect(r.status).toBe(201);
      return (await r.json()) as { id: number };
    },
    async drop() {
      await served.close();
      await drop();
    },
  };
}

const kinds: [string, () => Promise<{ db: Executor; drop: () => Promise<void>; url?: string }>][] = [
  [
    "PostgreSQL (or what the test database support finds), written to by psql",
    async () => {
      const t: TestDatabase = await createTestDatabase("feed");
      return { db: t.executor, drop: () => t.drop(), ...(t.url ? { url: t.url } : {}) };
    },
  ],
  [
    "PGlite",
    async () => {
      const p = new PGlite();
      await p.waitReady;
      return { db: createPgliteExecutor(p), drop: () => p.close() };
    },
  ],
];

describe.each(kinds)("the change feed on %s", (_name, open) => {
  let s: Setup;
  const streams: Stream[] = [];
  const watch = async (query: string, headers: Record<string, string> = {}): Promise<Stream> => {
    const st = await openStream(`${s.url}/tasks/events${query}`, headers);
    streams.push(st);
    return st;
  };
  beforeAll(async () => {
    const { db, drop, url } = await open();
    s = await setUp(db, drop, url ? { psql: url } : {});
  });
  afterAll(async () => {
    for (const st of streams) st.close();
    await s?.drop();
  });

  it("streams creates, updates, leaves and deletes matching the list grammar's filters", async () => {
    const red = await watch("?team=eq.red&or=(state.eq.todo,tags.has.urgent)");
    expect(red.status).toBe(200);
    expect(red.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const a = await s.post({ team: "red", title: "a", tags: [] });
    await s.post({ team: "blue", title: "not red", tags: [] });
    const b = await s.post({ team: "red", title: "b", tags: ["urgent"], state: "done" });
    await fetch(`${s.url}/tasks/${a.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "a2" }),
    });
    // Done and not urgent: out of the filter, so the subscriber is told it left.
    await fetch(`${s.url}/tasks/${a.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ state: "done" }),
    });
    await fetch(`${s.url}/tasks/${b.id}`, { method: "DELETE" });
    const got = await red.until(5);
    expect(got.map((m) => [m.event, (m.data as { id: number; title?: string }).title ?? m.data])).toEqual([
      ["create", "a"],
      ["create", "b"],
      ["update", "a2"],
      ["leave", { id: a.id }],
      ["delete", { id: b.id }],
    ]);
    expect(got[0]!.data).toEqual({ id: a.id, team: "red", state: "todo", title: "a", tags: [] });
    const ids = got.map((m) => m.id!);
    expect(new Set(ids).size).toBe(5);
    expect(ids.every((id) => /^[A-Za-z0-9_-]{32}$/.test(id))).toBe(true);
  });

  it("delivers writes made outside resc, applies select and search, never sends a hidden column", async () => {
    const st = await watch("?select=title&search=psql");
    await s.sql(`INSERT INTO tasks (team, title, tags, secret) VALUES ('green', 'from psql', '{}', 'hunter2'),
                 ('green', 'elsewhere', '{}', 'x')`);
    const [m] = await st.until(1);
    expect(m!.event).toBe("create");
    expect(m!.data).toEqual({ id: expect.any(Number), title: "from psql" });
    const all = await watch("");
    await s.sql(`UPDATE tasks SET secret = 'changed', title = 'psql again' WHERE title = 'from psql'`);
    const [u] = await all.until(1);
    expect(u!.event).toBe("update");
    expect(JSON.stringify(u!.data)).not.toContain("secret");
    expect(u!.data).toMatchObject({ title: "psql again", team: "green" });
  });

  it("scopes each subscriber by the BeforeQuery hook", async () => {
    const mine = await watch("", { "x-team": "teal" });
    const theirs = await watch("", { "x-team": "navy" });
    await s.sql(
      `INSERT INTO tasks (team, title, tags) VALUES ('navy', 'n1', '{}'), ('teal', 't1', '{}'), ('navy', 'n2', '{}')`,
    );
    expect((await mine.until(1)).map((m) => (m.data as { title: string }).title)).toEqual(["t1"]);
    expect((await theirs.until(2)).map((m) => (m.data as { title: string }).title)).toEqual(["n1", "n2"]);
    // A write moving a row out of a tenant's scope is a leave for that tenant.
    await s.sql(`UPDATE tasks SET team = 'navy' WHERE title = 't1'`);
    const [left] = (await mine.until(2)).slice(1);
    expect(left!.event).toBe("leave");
    const [entered] = (await theirs.until(3)).slice(2);
    expect(entered).toMatchObject({ event: "update", data: { title: "t1", team: "navy" } });
    expect(mine.messages).toHaveLength(2);
  });

  it("resumes after Last-Event-ID with no gap and no repeat, by header or parameter", async () => {
    const first = await watch("?team=eq.resume");
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('resume', 'r1', '{}'), ('resume', 'r2', '{}')`);
    const got = await first.until(2);
    first.close();
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('resume', 'r3', '{}')`);
    await s.sql(`UPDATE tasks SET title = 'r1b' WHERE title = 'r1'`);
    const again = await watch("?team=eq.resume", { "last-event-id": got[0]!.id! });
    const titles = (await again.until(3)).map((m) => `${m.event}:${(m.data as { title: string }).title}`);
    expect(titles).toEqual(["create:r2", "create:r3", "update:r1b"]);
    const byParam = await watch(`?team=eq.resume&last_event_id=${encodeURIComponent(got[1]!.id!)}`);
    expect((await byParam.until(2)).map((m) => (m.data as { title: string }).title)).toEqual(["r3", "r1b"]);
  });

  it("tells a client resuming from a position no longer kept to reload, then follows", async () => {
    // Transaction 3 (the first ordinary one) and outbox id 1 have both been handed out, but no change sits there.
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('elsewhere', 'allocates an outbox id', '{}')`);
    // Sealed as the service seals positions (docs/decisions/1365-opaque-feed-positions.md), with the key it keeps.
    const secret = await s.db.query({ text: "SELECT encode(value, 'hex') AS v FROM resc_secrets", values: [] });
    const gone = new PositionSeal(Buffer.from(secret.rows[0]!.v!, "hex")).seal({ xid: "3", id: "1" });
    const st = await watch("?team=eq.gone", { "last-event-id": gone });
    const [reload] = await st.until(1);
    expect(reload).toMatchObject({ event: "reload", data: { detail: expect.stringContaining("older than") } });
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('gone', 'after reload', '{}')`);
    expect((await st.until(2))[1]).toMatchObject({ event: "create", data: { title: "after reload" } });
  });

  it("refuses what the feed does not take, naming the parameter, and a malformed Last-Event-ID", async () => {
    const bad = await openStream(`${s.url}/tasks/events?sort=title&per_page=5&team=eq.red`);
    expect(bad.status).toBe(400);
    const problem = bad.body as { errors: { location: string; allowed: string[] }[] };
    expect(problem.errors.map((e) => e.location)).toEqual(["query.sort", "query.per_page"]);
    expect(problem.errors[0]!.allowed).toContain("last_event_id");
    const badFilter = await openStream(`${s.url}/tasks/events?secret=eq.x`);
    expect(badFilter.status).toBe(400);
    const badId = await openStream(`${s.url}/tasks/events`, { "last-event-id": "yesterday" });
    expect(badId.status).toBe(400);
    expect((badId.body as { errors: { location: string }[] }).errors[0]!.location).toBe("header.last-event-id");
    const badParam = await openStream(`${s.url}/tasks/events?last_event_id=yesterday`);
    expect(badParam.status).toBe(400);
    expect(badParam.body).toMatchObject({
      type: "/problems/invalid-query",
      errors: [{ location: "query.last_event_id" }],
    });
    // A resource without events has no feed: the path is a read of the key "events".
    expect((await fetch(`${s.url}/notes/events`)).status).toBe(400);
  });

  it("sends heartbeats as comments: a position reached while nothing matched is never sent (decision 1361)", async () => {
    const st = await watch("?team=eq.nobody");
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('other', 'o', '{}')`);
    const before = st.lastId();
    const beats = st.comments();
    const deadline = Date.now() + 5000;
    while (st.comments() < beats + 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(st.comments()).toBeGreaterThanOrEqual(beats + 3);
    expect(st.lastId()).toBe(before);
    expect(st.messages).toHaveLength(0);
  });
});

describe("the last subscriber leaving while the next arrives", () => {
  let s: Setup;
  beforeAll(async () => {
    const t = await createTestDatabase("feed_alone");
    s = await setUp(t.executor, () => t.drop());
  });
  afterAll(async () => {
    await s?.drop();
  });

  it("leaves the next one a running feed that sends what it missed", async () => {
    const only = await openStream(`${s.url}/tasks/events`);
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('x', 'one', '{}'), ('x', 'two', '{}')`);
    const [first] = await only.until(1);
    // Closed and reopened at once: the server learns of the close while the new one subscribes.
    only.close();
    const next = await openStream(`${s.url}/tasks/events`, { "last-event-id": first!.id! });
    expect((await next.until(1)).map((m) => (m.data as { title: string }).title)).toEqual(["two"]);
    await s.sql(`INSERT INTO tasks (team, title, tags) VALUES ('x', 'three', '{}')`);
    expect((await next.until(2))[1]).toMatchObject({ event: "create", data: { title: "three" } });
    next.close();
  });
});

describe("a slow subscriber", () => {
  let s: Setup;
  beforeAll(async () => {
    const t = await createTestDatabase("feed_slow");
    s = await setUp(t.executor, () => t.drop(), { bufferEvents: 50 });
  });
  afterAll(async () => {
    await s?.drop();
  });

  it("is cut off with a reconnect event while another keeps receiving everything", async () => {
    // The other one follows with the typed client's reconnecting reader: whether or not a busy machine ever
    // makes it lag past the bound too, it must end with every event once, in order.
    const client = new HttpClient({ baseURL: s.url });
    const stop = new AbortController();
    const ids: number[] = [];
    const following = (async () => {
      for await (const e of followEventStream(client, "/tasks", [["team", "eq.bulk"]], { signal: stop.signal })) {
        ids.push((JSON.parse(e.data) as { id: number }).id);
        if (ids.length === 10_000) break;
      }
    })();
    // Never read: the socket's buffers fill, then the server's bound is reached.
    const slow = await fetch(`${s.url}/tasks/events?team=eq.bulk`, { headers: { accept: "text/event-stream" } });
    expect(slow.status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const pad = "x".repeat(2000);
    for (let i = 0; i < 4; i++)
      await s.sql(
        `INSERT INTO tasks (team, title, tags) SELECT 'bulk', 'row ' || g || '${pad}', '{}' FROM generate_series(1, 2500) g`,
      );
    await Promise.race([following, new Promise((r) => setTimeout(r, 90_000))]);
    stop.abort();
    expect(ids).toHaveLength(10_000);
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    // Now read the slow one: what it got, then the reason, then the end.
    const text = await slow.text();
    expect(text).toMatch(/event: reconnect\ndata: \{"reason":"slow-subscriber"/);
    const delivered = text.match(/^event: create$/gm)?.length ?? 0;
    expect(delivered).toBeLessThan(10_000);
  }, 120_000);
});
