/**
 * The typed client's feed gives up where a person would
 * (docs/decisions/1361-feed-positions-and-client-retries.md), against a
 * real HTTP server playing a script: a refusal (400, 404, a 2xx that is no
 * event stream) rejects once with its problem document, after exactly one
 * request; a failure (5xx, 429, a cut connection) is retried with growing,
 * capped, jittered delays, each told to `onError`, and the feed then
 * follows as if nothing happened.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  HttpClient,
  ProblemError,
  TransportError,
  backoffDelay,
  followEventStream,
  type FeedRetry,
  type RawChangeEvent,
} from "../../compiler/backends/client/core/http.js";
import { Client, ProblemError as GeneratedProblemError } from "../../fixtures/spec/expected/client/index.js";
import { problemBody, scriptedServer, type Scripted, type Step } from "../support/scripted-server.js";

const EVENT = 'id: 9.4\nevent: create\ndata: {"id":1,"title":"after the outage"}\n\n';
const STREAM: Step = { stream: ["retry: 1000\nid: 9.3\n\n", EVENT] };

let server: Scripted | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The first event of the feed at `server`, the retries it reported, or the error it ended with (within 20 s). */
async function first(
  steps: Step[],
  backoff = { initialMs: 40, maxMs: 2000 },
): Promise<{ event?: RawChangeEvent; error?: unknown; retries: FeedRetry[] }> {
  server = await scriptedServer(steps);
  const retries: FeedRetry[] = [];
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 20_000);
  const feed = followEventStream(new HttpClient({ baseURL: server.url }), "/tasks", [["status", "eq.todo"]], {
    signal: stop.signal,
    backoff,
    onError: (r) => retries.push(r),
  });
  try {
    const next = await feed.next();
    return { ...(next.done ? {} : { event: next.value }), retries };
  } catch (error) {
    return { error, retries };
  } finally {
    clearTimeout(timer);
    stop.abort();
    await feed.return(undefined);
  }
}

describe("a token provider (docs/decisions/1367-access-rules.md)", () => {
  it("is asked at every connection, reconnects included, and each carries its answer", async () => {
    const ended: Step = { stream: ["retry: 10\nid: 9.1\n\n", "event: reconnect\ndata: {}\n\n"] };
    server = await scriptedServer([ended, ended, STREAM]);
    let calls = 0;
    const client = new HttpClient({ baseURL: server.url, token: async () => `token-${++calls}` });
    const stop = new AbortController();
    const feed = followEventStream(client, "/tasks", [], { signal: stop.signal });
    try {
      const next = await feed.next();
      expect(next.value).toMatchObject({ type: "create", id: "9.4" });
    } finally {
      stop.abort();
      await feed.return(undefined);
    }
    expect(calls).toBe(3);
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-2",
      "Bearer token-3",
    ]);
  });

  it("a 401 ends the feed with its problem after one request, as any refusal does", async () => {
    const got = await first([{ status: 401, body: problemBody(401, "header.authorization", "refused") }]);
    expect(got.error).toBeInstanceOf(ProblemError);
    expect((got.error as ProblemError).status).toBe(401);
    expect(got.retries).toEqual([]);
    expect(server!.requests).toHaveLength(1);
  });
});

describe("a refusal", () => {
  it.each([
    [400, "query.status"],
    [404, "path"],
  ])("%i rejects once with the problem document, after exactly one request, and is not retried", async (status, at) => {
    const got = await first([{ status, body: problemBody(status, at, "refused") }, STREAM]);
    expect(got.error).toBeInstanceOf(ProblemError);
    expect((got.error as ProblemError).status).toBe(status);
    expect((got.error as ProblemError).problem.errors).toEqual([{ location: at, detail: "refused" }]);
    expect(got.retries).toEqual([]);
    expect(got.event).toBeUndefined();
    expect(server!.requests).toHaveLength(1);
  });

  it("of the generated client's events() rejects the same way", async () => {
    server = await scriptedServer([{ status: 400, body: problemBody(400, "header.last-event-id", "ahead") }, STREAM]);
    const client = new Client({ baseURL: server.url });
    const error = await client.tasks
      .events({}, { lastEventId: "99999999.1" })
      .next()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GeneratedProblemError);
    expect((error as GeneratedProblemError).problem.errors![0]!.location).toBe("header.last-event-id");
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers["last-event-id"]).toBe("99999999.1");
  });

  it("a 2xx that is no event stream (a row, a proxy's page) rejects once instead of reconnecting forever", async () => {
    const got = await first([{ status: 200, body: { id: "events" }, headers: { "content-type": "application/json" } }]);
    expect(got.error).toBeInstanceOf(ProblemError);
    expect((got.error as ProblemError).message).toMatch(/not text\/event-stream/);
    expect(server!.requests).toHaveLength(1);
  });
});

describe("a failure", () => {
  it("5xx is retried with growing delays, each reported, then the feed follows", async () => {
    const got = await first([
      { status: 500, body: problemBody(500, "server", "boom") },
      { status: 502 },
      { status: 503, body: problemBody(503, "server", "stopping") },
      STREAM,
    ]);
    expect(got.error).toBeUndefined();
    expect(got.event).toEqual({ type: "create", id: "9.4", data: '{"id":1,"title":"after the outage"}' });
    expect(server!.requests).toHaveLength(4);
    expect(got.retries.map((r) => [r.attempt, (r.error as ProblemError).status])).toEqual([
      [1, 500],
      [2, 502],
      [3, 503],
    ]);
    expect(got.retries[0]!.error.message).toBe("boom");
    // Each delay is in [step/2, step] for a step doubling from 40 ms: they never shrink.
    const delays = got.retries.map((r) => r.delayMs);
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(20 * 2 ** i);
      expect(d).toBeLessThanOrEqual(40 * 2 ** i);
    });
    expect(delays[1]!).toBeGreaterThanOrEqual(delays[0]!);
    expect(delays[2]!).toBeGreaterThanOrEqual(delays[1]!);
  });

  it("a cut connection is retried and reported as a TransportError; the position resumed from is kept", async () => {
    const got = await first([{ cut: true }, { cut: true }, STREAM]);
    expect(got.event?.id).toBe("9.4");
    expect(got.retries.map((r) => r.error)).toEqual([expect.any(TransportError), expect.any(TransportError)]);
    expect(got.retries[0]!.error.message).toMatch(
      /^cannot reach http:\/\/127\.0\.0\.1:\d+\/tasks\/events\?status=eq\.todo/,
    );
  });

  it("429 waits at least its Retry-After", async () => {
    const got = await first([{ status: 429, headers: { "retry-after": "1" } }, STREAM]);
    expect(got.event?.id).toBe("9.4");
    expect(got.retries).toHaveLength(1);
    expect(got.retries[0]!.delayMs).toBeGreaterThanOrEqual(1000);
  });

  it("an onError that throws ends the feed with its error", async () => {
    server = await scriptedServer([{ status: 500 }, STREAM]);
    const feed = followEventStream(new HttpClient({ baseURL: server.url }), "/tasks", [], {
      backoff: { initialMs: 10 },
      onError: ({ error }) => {
        throw error;
      },
    });
    const error = await feed.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(500);
    expect(server.requests).toHaveLength(1);
  });
});

describe("backoffDelay", () => {
  it("doubles from initialMs, stays within the cap, and takes at most half off at random", () => {
    for (let attempt = 1; attempt <= 40; attempt++) {
      const step = Math.min(30_000, 1000 * 2 ** (attempt - 1));
      for (let i = 0; i < 20; i++) {
        const d = backoffDelay(attempt);
        expect(d).toBeGreaterThanOrEqual(step / 2);
        expect(d).toBeLessThanOrEqual(step);
      }
    }
    expect(backoffDelay(3, { initialMs: 10, maxMs: 25 })).toBeLessThanOrEqual(25);
    // Not the same for every client: over many draws, more than one value.
    expect(new Set(Array.from({ length: 50 }, () => backoffDelay(5))).size).toBeGreaterThan(1);
  });
});
