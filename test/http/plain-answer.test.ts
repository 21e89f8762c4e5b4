/**
 * Answers with a plain header record (docs/decisions/1352-answers-without-headers-objects.md):
 * when only resc's own handlers ran, an answer keeps its header record as
 * it is (no `Headers` object); a header that other code prepared with
 * `c.header()` (a middleware in front, Hono's `requestId`, a hook given
 * the request's context) is still sent. Checked over a real
 * `@hono/node-server` socket, where the record reaches Node's `writeHead`.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { requestId } from "hono/request-id";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";
import { nothingPrepared, plainAnswer, preparesNoHeaders } from "../../runtime/http/plain-answer.js";
import { answerProblems, withOperations } from "../../runtime/ops/index.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, databaseWith } from "../hooks/support.js";

const SCHEMA = `
table lamps {
  id   bigint @primary_key @default(identity)
  name text   @filterable
  resource "/lamps" { ops = [crud, list] }
}
`;

let db: TestDatabase;
let service: ServiceDescriptor;
const servers: ServerType[] = [];

beforeAll(async () => {
  const c = compileText(SCHEMA, "plain-answer.resource");
  service = c.service;
  db = await databaseWith("plainanswer", c.ddl, "INSERT INTO lamps (name) VALUES ('desk'), ('floor');");
});
afterAll(async () => {
  for (const s of servers) await new Promise<void>((resolve) => s.close(() => resolve()));
  await db?.drop();
});

/** Serves `app` on a real socket; resolves with its base URL. */
async function listen(app: Hono): Promise<string> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Status and raw header lines (name lowercased) of one answer, so a repeated or missing line shows. */
function fetchRaw(
  url: string,
  method = "GET",
  body?: string,
): Promise<{ status: number; headers: [string, string][] }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: body ? { "content-type": "application/json" } : {} }, (res) => {
      res.resume();
      const headers: [string, string][] = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2)
        headers.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const named = (headers: [string, string][], name: string): string[] =>
  headers.filter(([n]) => n === name).map(([, v]) => v);

/** The app: optionally the production layer, then `before` middleware, then the mounted service. */
function app(options: { layer?: boolean; before?: MiddlewareHandler[]; mount?: Partial<MountOptions> } = {}): Hono {
  const a = new Hono();
  if (options.layer) withOperations(a, { db: db.executor, level: "silent" });
  answerProblems(a, () => undefined);
  for (const mw of options.before ?? []) a.use(mw);
  const r = mountService(a, service, { db: db.executor, ...options.mount });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return a;
}

describe("nothingPrepared", () => {
  const a = new Hono();
  const answer = preparesNoHeaders(async (c: Context) => c.json({ plain: nothingPrepared(c) }));
  a.get("/alone", answer);
  a.use(
    "/behind-declared",
    preparesNoHeaders(async (_c, next) => next()),
  );
  a.get("/behind-declared", answer);
  a.use("/behind-other", async (_c, next) => next());
  a.get("/behind-other", answer);
  a.get("/undeclared", async (c) => c.json({ plain: nothingPrepared(c) }));

  it.each([
    ["/alone", true],
    ["/behind-declared", true],
    ["/behind-other", false],
    ["/undeclared", false],
  ])("%s: %s", async (path, plain) => {
    const res = await a.request(path);
    expect(await res.json()).toEqual({ plain });
  });

  it("is false for a context that did not come through Hono's routing", async () => {
    let seen: boolean | undefined;
    const b = new Hono();
    b.get("/", (c) => {
      // A context whose request carries no match, as a hand-made one would.
      const bare = Object.create(c, { req: { value: { routeIndex: 0 } } }) as Context;
      seen = nothingPrepared(bare);
      return c.text("ok");
    });
    await b.request("/");
    expect(seen).toBe(false);
  });
});

describe("answers of a mounted service", () => {
  it("keep their header record when only resc's handlers ran (the record itself reaches node-server)", async () => {
    // node-server's Response keeps (status, body, headers) under a symbol of its own; the headers are the
    // record given when no Headers object was made. Read here only to show which way the answer was built.
    let kept: unknown;
    const a = new Hono();
    withOperations(a, { db: db.executor, level: "silent" });
    a.use(async (c, next) => {
      await next();
      const cache = Object.getOwnPropertySymbols(c.res).find((s) => s.description === "cache");
      kept = cache === undefined ? undefined : (c.res as unknown as Record<symbol, unknown[]>)[cache]?.[2];
    });
    mountService(a, service, { db: db.executor });
    const base = await listen(a);
    await fetchRaw(`${base}/lamps/1`);
    // Behind an undeclared middleware (the one above): Hono's Headers.
    expect(kept).toBeInstanceOf(Headers);

    const plain = new Hono();
    withOperations(plain, { db: db.executor, level: "silent" });
    mountService(plain, service, { db: db.executor });
    const res = await plain.request("/lamps/1");
    const cache = Object.getOwnPropertySymbols(res).find((s) => s.description === "cache");
    const record = cache === undefined ? undefined : (res as unknown as Record<symbol, unknown[]>)[cache]?.[2];
    expect(record).not.toBeInstanceOf(Headers);
    expect(record).toMatchObject({ "content-type": "application/json; charset=utf-8", etag: expect.any(String) });
  });

  it("send every header once: read, list, create, a problem, a 204, with and without the layer", async () => {
    for (const layer of [false, true]) {
      const base = await listen(app({ layer }));
      const read = await fetchRaw(`${base}/lamps/1`);
      expect(read.status).toBe(200);
      expect(named(read.headers, "content-type")).toEqual(["application/json; charset=utf-8"]);
      expect(named(read.headers, "etag")).toHaveLength(1);
      expect(named(read.headers, "x-request-id")).toHaveLength(layer ? 1 : 0);
      const list = await fetchRaw(`${base}/lamps`);
      expect(list.status).toBe(200);
      expect(named(list.headers, "content-type")).toEqual(["application/json; charset=utf-8"]);
      const created = await fetchRaw(`${base}/lamps`, "POST", JSON.stringify({ name: "wall" }));
      expect(created.status).toBe(201);
      expect(named(created.headers, "etag")).toHaveLength(1);
      const missing = await fetchRaw(`${base}/lamps/999999`);
      expect(missing.status).toBe(404);
      expect(named(missing.headers, "content-type")).toEqual(["application/problem+json"]);
      expect(named(missing.headers, "x-request-id")).toHaveLength(layer ? 1 : 0);
      const id = JSON.parse(
        await (
          await fetch(`${base}/lamps`, {
            method: "POST",
            body: '{"name":"gone"}',
            headers: { "content-type": "application/json" },
          })
        ).text(),
      ).id as number;
      const deleted = await fetchRaw(`${base}/lamps/${id}`, "DELETE");
      expect(deleted.status).toBe(204);
      expect(named(deleted.headers, "x-request-id")).toHaveLength(layer ? 1 : 0);
    }
  });

  it("keep a header a middleware in front prepared with c.header()", async () => {
    const before: MiddlewareHandler = async (c, next) => {
      c.header("x-prepared", "kept");
      await next();
    };
    for (const layer of [false, true]) {
      const base = await listen(app({ layer, before: [before] }));
      for (const [method, path] of [
        ["GET", "/lamps/1"],
        ["GET", "/lamps"],
        ["GET", "/lamps/999999"],
      ] as const) {
        const r = await fetchRaw(`${base}${path}`, method);
        expect(named(r.headers, "x-prepared"), `${method} ${path}`).toEqual(["kept"]);
        expect(named(r.headers, "content-type")).toHaveLength(1);
      }
    }
  });

  it("keep the id Hono's requestId middleware prepared", async () => {
    const base = await listen(app({ before: [requestId()] }));
    const r = await fetchRaw(`${base}/lamps/1`);
    expect(named(r.headers, "x-request-id")).toHaveLength(1);
    expect(named(r.headers, "etag")).toHaveLength(1);
  });

  it("keep a header a hook set on the request's context", async () => {
    const base = await listen(
      app({
        mount: {
          hooks: {
            beforeQuery: {
              lamps: (ctx) => {
                ctx.http?.header("x-hook", "seen");
                return undefined;
              },
            },
          },
        },
      }),
    );
    const r = await fetchRaw(`${base}/lamps/1`);
    expect(r.status).toBe(200);
    expect(named(r.headers, "x-hook")).toEqual(["seen"]);
  });

  it("plainAnswer answers as c.body would: status, body and headers", async () => {
    const a = new Hono();
    a.get(
      "/x",
      preparesNoHeaders(async (c: Context) =>
        plainAnswer(c, '{"a":1}', 200, { "content-type": "application/json", etag: '"t"' }),
      ),
    );
    a.get("/y", async (c) => plainAnswer(c, '{"a":1}', 200, { "content-type": "application/json", etag: '"t"' }));
    for (const path of ["/x", "/y"]) {
      const res = await a.request(path);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('{"a":1}');
      expect(res.headers.get("etag")).toBe('"t"');
      expect(res.headers.get("content-type")).toBe("application/json");
    }
  });
});
