/**
 * Every answer of the production layer (`resc/ops`) carries the request's
 * `X-Request-Id` exactly once, whichever way it was built
 * (docs/decisions/1350-request-id-in-the-answer-record.md): a JSON body or
 * a problem document built with the id in its header record, a body-less
 * 204, an answer the handler made itself (as an idempotent replay is), a
 * streamed one (as a change feed is), a health answer, one a later middleware replaced,
 * and the 404 and 500 of `answerProblems`. Checked through Hono's
 * `app.request` and through a real `@hono/node-server` socket, where the
 * record and the `Headers` paths differ.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignRequestId } from "../../runtime/http/request-id.js";
import { emptyAnswer, jsonText, problemResponse } from "../../runtime/http/respond.js";
import { answerProblems, withOperations } from "../../runtime/ops/index.js";
import { problem } from "../../runtime/problem.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const db: TestDatabase = await createTestDatabase("reqid");
const app = new Hono();
const ops = withOperations(app, { db: db.executor, level: "silent" });
answerProblems(app, () => undefined);
// A middleware of the application's own that replaces some answers after the handler.
app.use("/replaced", async (c, next) => {
  await next();
  c.res = new Response("replaced", { status: 200, headers: { "content-type": "text/plain" } });
});
app.get("/json", (c) => jsonText(c, '{"a":1}', 200, { etag: '"t"' }));
app.get("/problem", (c) => problemResponse(c, problem("not-found", "nothing here")));
app.delete("/empty", (c) => emptyAnswer(c, 204));
app.get("/own", () => new Response("made by the handler", { status: 200, headers: { "content-type": "text/plain" } }));
app.get("/replaced", (c) => jsonText(c, "{}"));
// A streamed answer, as a change feed's Server-Sent Events are.
app.get(
  "/stream",
  () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: 1\n\n"));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    ),
);
app.get("/throws", () => {
  throw new Error("boom");
});

let server: ServerType;
let base: string;
beforeAll(async () => {
  server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await db.drop();
});

/** Status and every `x-request-id` line of one answer over a real socket (raw header lines, so a repeat shows). */
function overSocket(method: string, path: string, id?: string): Promise<{ status: number; ids: string[] }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, headers: id ? { "x-request-id": id } : {} }, (res) => {
      res.resume();
      const ids: string[] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        if (res.rawHeaders[i]!.toLowerCase() === "x-request-id") ids.push(res.rawHeaders[i + 1]!);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ids }));
    });
    req.on("error", reject);
    req.end();
  });
}

const ANSWERS: [string, string, number][] = [
  ["GET", "/json", 200],
  ["GET", "/problem", 404],
  ["DELETE", "/empty", 204],
  ["GET", "/own", 200],
  ["GET", "/replaced", 200],
  ["GET", "/stream", 200],
  ["GET", "/throws", 500],
  ["GET", "/no-such-route", 404],
  ["GET", "/live", 200],
  ["GET", "/ready", 200],
];

describe("X-Request-Id on every answer", () => {
  it.each(ANSWERS)("%s %s over a socket: the caller's id, once", async (method, path, status) => {
    expect(await overSocket(method, path, "trace-9")).toEqual({ status, ids: ["trace-9"] });
  });

  it.each(ANSWERS)("%s %s over a socket: a new UUID when the caller sends none", async (method, path, status) => {
    const answer = await overSocket(method, path);
    expect(answer.status).toBe(status);
    expect(answer.ids).toHaveLength(1);
    expect(answer.ids[0]).toMatch(UUID);
  });

  it.each(ANSWERS)("%s %s through app.request", async (method, path, status) => {
    const r = await app.request(path, { method, headers: { "x-request-id": "trace-10" } });
    expect(r.status).toBe(status);
    expect(r.headers.get("x-request-id")).toBe("trace-10");
  });

  it("keeps the answer's own headers beside the id", async () => {
    const r = await fetch(`${base}/json`);
    expect(r.headers.get("etag")).toBe('"t"');
    expect(r.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await r.text()).toBe('{"a":1}');
    const replaced = await fetch(`${base}/replaced`);
    expect(await replaced.text()).toBe("replaced");
  });

  it("counts no request in flight once every one above was answered, the failed one included", () => {
    expect(ops.inFlight).toBe(0);
  });

  it("writes the id into the answer's own record, without the echo after the handler", async () => {
    // Only assignRequestId, no echoRequestId: the header can come from bodyWithRequestId alone.
    const recordOnly = new Hono();
    recordOnly.use(async (c, next) => {
      assignRequestId(c);
      await next();
    });
    recordOnly.get("/json", (c) => jsonText(c, "{}", 200, { etag: '"t"' }));
    recordOnly.get("/own", () => new Response("made by the handler"));
    const json = await recordOnly.request("/json", { headers: { "x-request-id": "trace-12" } });
    expect(json.headers.get("x-request-id")).toBe("trace-12");
    expect(json.headers.get("etag")).toBe('"t"');
    // An answer the handler built itself gets the id only from the echo, which this app does not run.
    const own = await recordOnly.request("/own", { headers: { "x-request-id": "trace-12" } });
    expect(own.headers.get("x-request-id")).toBeNull();
  });

  it("adds nothing when no layer gave the request an id", async () => {
    const bare = new Hono();
    bare.get("/json", (c) => jsonText(c, "{}"));
    const r = await bare.request("/json", { headers: { "x-request-id": "trace-11" } });
    expect(r.headers.get("x-request-id")).toBeNull();
  });
});
