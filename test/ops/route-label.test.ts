/**
 * The route a request is logged and counted under is the one that answered
 * it (runtime/ops/index.ts, `routeOf`): where two routes match one path, as
 * a resource's change feed `/orders/events` and its read `/orders/:id` do,
 * the feed's request is not labelled as a read, in the log line nor in
 * `resc_http_requests_total` (docs/deploy.md, metrics).
 */
import { Writable } from "node:stream";
import { Hono } from "hono";
import pino from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { withOperations } from "../../runtime/ops/index.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";

const db: TestDatabase = await createTestDatabase("routelabel");
afterAll(() => db.drop());

const lines: { route?: string; target?: string; status?: number }[] = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const l of chunk.toString("utf8").split("\n")) if (l.trim()) lines.push(JSON.parse(l));
    done();
  },
});

const app = new Hono();
withOperations(app, { db: db.executor, logger: pino({ level: "info" }, sink) });
// A guard of the application's own in front of everything, as an auth middleware is.
app.use("/orders/*", async (c, next) => (c.req.header("x-refuse") ? c.json({ refused: true }, 401) : next()));
// Registered in either order, the two routes both match /orders/events.
app.get("/orders/events", (c) => c.text("feed"));
app.get("/orders/:id", (c) => c.json({ id: c.req.param("id") }));
app.get("/items/:id", (c) => c.json({ id: c.req.param("id") }));
app.get("/items/events", (c) => c.text("never reached: /items/:id answers first"));

async function routeOfRequest(path: string, headers: Record<string, string> = {}): Promise<string | undefined> {
  const before = lines.length;
  await app.request(path, { headers });
  await new Promise((r) => setImmediate(r));
  return lines.slice(before).find((l) => l.target === path)?.route;
}

describe("the route a request is labelled with", () => {
  it("is the route that answered, not the last one matching the path", async () => {
    expect(await routeOfRequest("/orders/events")).toBe("/orders/events");
    expect(await routeOfRequest("/orders/7")).toBe("/orders/:id");
    // Here the parameter route is first and answers; so it is the label.
    expect(await routeOfRequest("/items/events")).toBe("/items/:id");
  });

  it("is the route the request was for when a middleware answered before it", async () => {
    expect(await routeOfRequest("/orders/7", { "x-refuse": "1" })).toBe("/orders/:id");
    expect(await routeOfRequest("/nowhere")).toBe("unmatched");
  });

  it("is the metric's route label too", async () => {
    const text = await (await app.request("/metrics")).text();
    expect(text).toMatch(/resc_http_requests_total\{[^}]*route="\/orders\/events"[^}]*\} [1-9]/);
  });
});
