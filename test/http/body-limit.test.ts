/**
 * Write bodies under Node (docs/decisions/1345-body-read-from-node.md): the
 * limit middleware reads the body from Node's request on a real socket,
 * counts it against the limit with and without `Content-Length`, decodes it
 * as `Request.text()` would, and leaves it for `c.req.text()` and
 * `c.req.json()`; through `app.request` (no Node request) Hono's own
 * `bodyLimit` still applies. The write routes over a real server are in
 * test/http/wire.test.ts and test/faults/limits.test.ts.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { limitBody, REFUSED_BODY_DRAIN } from "../../runtime/http/body-limit.js";

const LIMIT = 64;

const app = new Hono();
app.post(
  "/echo",
  limitBody(LIMIT, (c) => c.json({ refused: true }, 413, { connection: "close" })),
  async (c) => {
    // Set by the middleware when it read the body from Node's request itself; Hono's bodyLimit never sets it.
    const readByMiddleware = c.req.bodyCache.text !== undefined;
    const text = await c.req.text();
    const json: unknown = await c.req.json().catch(() => "not JSON");
    return c.json({ readByMiddleware, text, json });
  },
);

let server: ServerType;
let base = "";
beforeAll(async () => {
  server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

interface Answer {
  status: number;
  connection?: string;
  body: { readByMiddleware?: boolean; text?: string; json?: unknown; refused?: boolean };
}

/**
 * POSTs `chunks` as written, one write each, with a `Content-Length` unless `chunked`; resolves once the whole
 * body was written and the answer read, rejects on any error of the client (EPIPE when the server closed under it).
 */
function post(chunks: Buffer[], chunked = false): Promise<Answer> {
  const length = chunks.reduce((n, b) => n + b.length, 0);
  let written!: () => void;
  let unsent!: (e: Error) => void;
  const sent = new Promise<void>((resolve, reject) => ((written = resolve), (unsent = reject)));
  const answered = new Promise<Answer>((resolve, reject) => {
    const req = http.request(
      `${base}/echo`,
      {
        method: "POST",
        headers: { "content-type": "application/json", ...(chunked ? {} : { "content-length": length }) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () =>
          resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }),
        );
      },
    );
    req.on("error", reject);
    req.on("close", () => setTimeout(() => unsent(new Error("closed before the whole body was sent")), 100));
    const write = async (): Promise<void> => {
      for (const c of chunks) {
        req.write(c);
        await new Promise((r) => setTimeout(r, 5));
      }
      req.end(written);
    };
    void write();
  });
  return Promise.all([answered, sent]).then(([a]) => a);
}

describe("bodies read from Node's request", () => {
  it("reads a body that arrives in pieces, a character split between two of them, for text() and json()", async () => {
    const body = Buffer.from(JSON.stringify({ name: "Zoë 🐘" }));
    const cut = body.indexOf(Buffer.from("🐘")) + 2; // inside the four bytes of the emoji
    for (const chunked of [false, true]) {
      const a = await post([body.subarray(0, 5), body.subarray(5, cut), body.subarray(cut)], chunked);
      expect(a.status, `chunked ${chunked}`).toBe(200);
      expect(a.body).toEqual({ readByMiddleware: true, text: '{"name":"Zoë 🐘"}', json: { name: "Zoë 🐘" } });
    }
  });

  it("drops a leading byte order mark and replaces invalid UTF-8, as Request.text() does", async () => {
    const bom = await post([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":1}')]);
    expect(bom.body).toMatchObject({ text: '{"a":1}', json: { a: 1 } });
    const bad = await post([Buffer.from('"a'), Buffer.from([0xff]), Buffer.from('b"')]);
    expect(bad.body).toMatchObject({ text: '"a\uFFFDb"', json: "a\uFFFDb" });
  });

  it("takes a body of exactly the limit and refuses one byte more, with and without Content-Length", async () => {
    const exact = Buffer.from(JSON.stringify({ s: "x".repeat(LIMIT - 8) }));
    expect(exact.length).toBe(LIMIT);
    const over = Buffer.from(JSON.stringify({ s: "x".repeat(LIMIT - 7) }));
    for (const chunked of [false, true]) {
      const ok = await post([exact.subarray(0, 10), exact.subarray(10)], chunked);
      expect(ok.status, `chunked ${chunked}`).toBe(200);
      expect(ok.body.text).toBe(exact.toString());
      const refused = await post([over.subarray(0, 10), over.subarray(10)], chunked);
      expect(refused.status, `chunked ${chunked}`).toBe(413);
      expect(refused.connection).toBe("close");
    }
  });

  it("reads the rest of a refused body before the 413, so a client still sending finishes and reads it", async () => {
    // 4 MiB against a 64-byte limit: without the drain the socket closes under the client (EPIPE).
    const big = Buffer.alloc(4 * 1024 * 1024, "x");
    for (const chunked of [false, true]) {
      const pieces = Array.from({ length: 64 }, (_, i) => big.subarray(i * 65536, (i + 1) * 65536));
      const refused = await post(pieces, chunked);
      expect(refused.status, `chunked ${chunked}`).toBe(413);
      expect(refused.connection).toBe("close");
    }
  });

  it("answers at once, without waiting for it, a body declared larger than it drains", async () => {
    const { port } = new URL(base);
    const got = await new Promise<string>((resolve) => {
      let text = "";
      const s = net.connect(Number(port), "127.0.0.1", () =>
        s.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: ${REFUSED_BODY_DRAIN.maxBytes + 1}\r\n\r\n`),
      );
      s.setEncoding("latin1");
      s.on("data", (d: string) => (text += d));
      s.on("error", () => undefined);
      s.on("close", () => resolve(text));
    });
    expect(got).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("reads an empty body as empty text", async () => {
    const a = await post([]);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ readByMiddleware: true, text: "", json: "not JSON" });
  });

  it("leaves the body to Hono's bodyLimit without a Node request (app.request)", async () => {
    const ok = await app.request("/echo", { method: "POST", body: '{"a":1}' });
    expect(await ok.json()).toEqual({ readByMiddleware: false, text: '{"a":1}', json: { a: 1 } });
    const refused = await app.request("/echo", { method: "POST", body: "x".repeat(LIMIT + 1) });
    expect(refused.status).toBe(413);
  });
});
