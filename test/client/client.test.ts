/**
 * The typed client's HTTP core without a service (spec: Typed client;
 * docs/decisions/1051-typed-client.md): what goes on the wire, where the
 * token goes, how refusals and unreachable services surface, and how
 * `pages` walks `next_cursor`. Runs the emitted client of spec.resource
 * (its golden copy).
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import {
  Client,
  DEFAULT_BASE_URL,
  ProblemError,
  TransportError,
  allowedAt,
  type PreparedRequest,
  type RawResponse,
} from "../../fixtures/spec/expected/client/index.js";

/** A transport that records every request and answers from `reply`. */
function recording(reply: (r: PreparedRequest) => RawResponse = () => ({ status: 200, body: "{}" })) {
  const seen: PreparedRequest[] = [];
  const signals: AbortSignal[] = [];
  const transport = async (r: PreparedRequest, signal: AbortSignal): Promise<RawResponse> => {
    seen.push(r);
    signals.push(signal);
    return reply(r);
  };
  return { seen, signals, transport };
}

describe("requests", () => {
  it("builds the URL from the base address (with its path), the resource and the query", async () => {
    const t = recording(() => ({ status: 200, body: '{"items":[],"page":1,"per_page":25,"has_more":false}' }));
    const client = new Client({ baseURL: "https://tracker.example/api/", transport: t.transport });
    await client.tasks.list({ where: { status: { in: ["todo", "doing"] } }, sort: ["-priority"], perPage: 10 });
    expect(t.seen[0].method).toBe("GET");
    expect(t.seen[0].url).toBe("https://tracker.example/api/tasks?status=in.%28todo%2Cdoing%29&sort=-priority&per_page=10");
    expect(t.seen[0].body).toBeUndefined();
  });

  it("uses http://127.0.0.1:3000 when no base address is given", async () => {
    const t = recording();
    await new Client({ transport: t.transport }).orgs.get("00000000-0000-4000-8000-000000000001");
    expect(DEFAULT_BASE_URL).toBe("http://127.0.0.1:3000");
    expect(t.seen[0].url).toBe("http://127.0.0.1:3000/orgs/00000000-0000-4000-8000-000000000001");
  });

  it("sends the token only as Authorization: Bearer, never in the URL", async () => {
    const t = recording();
    const client = new Client({ token: "s3cr3t-token", transport: t.transport });
    await client.tasks.list({ where: { title: "x" } });
    await client.tasks.update(1, { title: "y" });
    for (const r of t.seen) {
      expect(r.headers.authorization).toBe("Bearer s3cr3t-token");
      expect(r.url).not.toContain("s3cr3t");
      expect(Object.entries(r.headers).filter(([, v]) => v.includes("s3cr3t")).map(([k]) => k)).toEqual(["authorization"]);
    }
    await new Client({ transport: t.transport }).tasks.get(1);
    expect(t.seen[2].headers.authorization).toBeUndefined();
  });

  it("sends bodies as JSON and percent-encodes ids", async () => {
    const t = recording();
    const client = new Client({ transport: t.transport });
    await client.tasks.create({ list_id: 1, title: "a/b", labels: ["x"], attrs: { k: [1, null] } });
    await client.users.update("a/b?c", { name: "Ada" });
    await client.comments.delete("00000000-0000-4000-8000-000000001001");
    expect(t.seen.map((r) => [r.method, r.url, r.body, r.headers["content-type"]])).toEqual([
      ["POST", "http://127.0.0.1:3000/tasks", '{"list_id":1,"title":"a/b","labels":["x"],"attrs":{"k":[1,null]}}', "application/json"],
      ["PATCH", "http://127.0.0.1:3000/users/a%2Fb%3Fc", '{"name":"Ada"}', "application/json"],
      ["DELETE", "http://127.0.0.1:3000/comments/00000000-0000-4000-8000-000000001001", undefined, undefined],
    ]);
  });

  it("passes the caller's AbortSignal to the transport", async () => {
    const t = recording();
    const controller = new AbortController();
    await new Client({ transport: t.transport }).tasks.get(1, {}, { signal: controller.signal });
    expect(t.signals[0]).toBe(controller.signal);
  });

  it("do() returns the raw JSON text; with() changes options and keeps the rest", async () => {
    const t = recording(() => ({ status: 200, body: '{"id": 1, "big": 12345678901234567890}' }));
    const client = new Client({ baseURL: "http://a", token: "t1", transport: t.transport });
    expect(await client.do({ method: "GET", path: "/tasks/1" })).toBe('{"id": 1, "big": 12345678901234567890}');
    const other = client.with({ token: "t2" });
    expect([other.baseURL, other.token, other.transport]).toEqual(["http://a", "t2", t.transport]);
    expect(other.tasks).toBeDefined();
  });
});

describe("credentials (docs/decisions/1367-access-rules.md)", () => {
  it("asks a token provider once per request and sends what it answers that time", async () => {
    const t = recording((r) =>
      r.url.includes("/tasks?")
        ? { status: 200, body: '{"items":[],"per_page":25,"has_more":false}' }
        : { status: 200, body: '{"id":1}' },
    );
    let calls = 0;
    const client = new Client({ token: () => `token-${++calls}`, transport: t.transport });
    await client.tasks.list({ where: { title: "x" } });
    await client.tasks.get(1);
    await client.tasks.update(1, { title: "y" });
    expect(calls).toBe(3);
    expect(t.seen.map((r) => r.headers.authorization)).toEqual(["Bearer token-1", "Bearer token-2", "Bearer token-3"]);
    for (const r of t.seen) expect(r.url).not.toContain("token-");
  });

  it("awaits an asynchronous provider, and sends no Authorization when it answers nothing", async () => {
    const t = recording();
    const answers = ["refreshed", undefined, ""];
    const client = new Client({
      token: async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return answers.shift();
      },
      transport: t.transport,
    });
    for (let i = 0; i < 3; i++) await client.tasks.get(1);
    expect(t.seen.map((r) => r.headers.authorization)).toEqual(["Bearer refreshed", undefined, undefined]);
  });

  it("keeps the provider across with(), and a provider that throws sends nothing", async () => {
    const t = recording();
    let calls = 0;
    const base = new Client({ token: () => `t${++calls}`, transport: t.transport });
    await base.with({ baseURL: "https://other.example" }).tasks.get(1);
    expect(t.seen[0].headers.authorization).toBe("Bearer t1");
    const failing = new Client({
      token: () => Promise.reject(new Error("the identity provider is down")),
      transport: t.transport,
    });
    await expect(failing.tasks.get(1)).rejects.toThrow("the identity provider is down");
    expect(t.seen).toHaveLength(1);
  });

  it.each([
    [401, "/problems/unauthorized", "The bearer token was refused."],
    [403, "/problems/forbidden", "Your role may not create on /tasks."],
  ])("a %i answer throws the ProblemError with its problem document", async (status, type, detail) => {
    const body = { type, title: "x", status, detail, errors: [{ location: "header.authorization", detail: "refused" }] };
    const t = recording(() => ({ status, body: JSON.stringify(body) }));
    const e = await new Client({ token: () => "expired", transport: t.transport }).tasks.get(1).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProblemError);
    expect((e as ProblemError).status).toBe(status);
    expect((e as ProblemError).message).toBe(detail);
    expect((e as ProblemError).problem).toEqual(body);
  });
});

describe("failures", () => {
  const problem = {
    type: "/problems/invalid-query",
    title: "Bad Request",
    status: 400,
    detail: "unknown column bogus (and 1 more problem)",
    errors: [
      { location: "query.sort", detail: "unknown column bogus", allowed: ["title", "status"] },
      { location: "query.expand", detail: "x is not an expandable relation", value: "x", allowed: ["list", "assignee", "comments"] },
    ],
  };

  it("throws a ProblemError carrying the problem document; allowedAt reads a location's alternatives", async () => {
    const t = recording(() => ({ status: 400, body: JSON.stringify(problem) }));
    const e = await new Client({ transport: t.transport }).tasks.list({ sort: ["title"] }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ProblemError);
    const pe = e as ProblemError;
    expect([pe.status, pe.message]).toEqual([400, problem.detail]);
    expect(pe.problem).toEqual(problem);
    expect(allowedAt(pe, "query.sort")).toEqual(["title", "status"]);
    expect(allowedAt(pe.problem, "query.expand")).toEqual(["list", "assignee", "comments"]);
    expect(allowedAt(pe, "query.select")).toBeUndefined();
  });

  it("makes up a problem document when the body is not one", async () => {
    const t = recording(() => ({ status: 502, body: "<html>Bad gateway</html>" }));
    const e = (await new Client({ transport: t.transport }).tasks.get(1).catch((x: unknown) => x)) as ProblemError;
    expect(e).toBeInstanceOf(ProblemError);
    expect(e.status).toBe(502);
    expect(e.message).toMatch(/HTTP 502/);
    expect(e.message).not.toContain("html");
  });

  it("throws a TransportError naming the address when nothing answers", async () => {
    // A port that was free a moment ago: connecting is refused.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const e = await new Client({ baseURL: `http://127.0.0.1:${port}` }).tasks.get(1).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TransportError);
    expect((e as Error).message).toBe(`cannot reach http://127.0.0.1:${port}/tasks/1: ECONNREFUSED`);
  });
});

describe("pages", () => {
  it("follows next_cursor with the same query, without page, offset and count, until a page has none", async () => {
    const answers = [
      { items: [{ id: 1 }], page: 3, per_page: 1, has_more: true, next_cursor: "c1", total: 3 },
      { items: [{ id: 2 }], page: 4, per_page: 1, has_more: true, next_cursor: "c2" },
      { items: [{ id: 3 }], page: 5, per_page: 1, has_more: false },
    ];
    const t = recording(() => ({ status: 200, body: JSON.stringify(answers.shift()) }));
    const client = new Client({ transport: t.transport });
    const ids: number[] = [];
    for await (const page of client.tasks.pages({ where: { status: "todo" }, select: ["title"], page: 3, perPage: 1, count: true })) {
      for (const row of page.items) ids.push(row.id);
    }
    expect(ids).toEqual([1, 2, 3]);
    expect(t.seen.map((r) => new URL(r.url).search)).toEqual([
      "?status=eq.todo&select=title&page=3&per_page=1&count=exact",
      "?status=eq.todo&select=title&per_page=1&cursor=c1",
      "?status=eq.todo&select=title&per_page=1&cursor=c2",
    ]);
  });

  it("stops when a page repeats the cursor it was asked with", async () => {
    const t = recording(() => ({ status: 200, body: '{"items":[],"per_page":1,"has_more":true,"next_cursor":"same"}' }));
    let n = 0;
    for await (const page of new Client({ transport: t.transport }).tasks.pages({ cursor: "same" })) n += page.items.length + 1;
    expect(n).toBe(1);
  });
});
