/**
 * What Node's HTTP parser and the body limit refuse, over real `resc serve`
 * and `resc dev` processes (docs/decisions/1362-parser-refusals.md,
 * docs/http.md "Problem documents"):
 *
 * - a 16 MiB POST is answered with the 413 problem document, whether the
 *   client declares its length (`fetch` with the whole body) or streams it
 *   slowly in chunks; neither sees EPIPE or a reset;
 * - a header section past Node's limit is a 431 problem document, a control
 *   byte in a header or in the request line a 400 one naming where, each a
 *   complete HTTP/1.1 answer with `Connection: close`;
 * - `resc dev` and `resc serve` stopped by SIGTERM with nothing in flight,
 *   while the change feed and a webhook subscription run, log no fault.
 *
 * `resc serve` runs on PostgreSQL (skipped on the embedded database);
 * `resc dev` on its embedded one. Needs `npm run build`.
 */
import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { startReceiver, type Receiver } from "../support/receiver.js";
import { startResc, startServe, type ServeProcess } from "../support/serve-process.js";
import { compileFile } from "../support/service.js";

const FILE = "test/serve/fixtures/refusals.resource";
const HOOKS = "test/serve/fixtures/refusals-hooks.ts";
const BIG = 16 * 1024 * 1024;

/** A webhook receiver answering 204 to everything. */
let receiver: Receiver;

const dataDirs: string[] = [];

/** Starts `resc dev FILE --hooks HOOKS` on a fresh embedded database; resolves once it serves. */
function startDev(): Promise<ServeProcess> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "resc-refusals-"));
  dataDirs.push(dataDir);
  return startResc("dev", FILE, ["--hooks", HOOKS, "--data-dir", dataDir], {
    env: { ...process.env, REFUSALS_WEBHOOK_URL: receiver.url },
    ms: 60_000,
  });
}

interface Refused {
  status?: number;
  type?: string;
  contentType?: string | undefined;
  /** The client's error writing or reading (EPIPE, ECONNRESET…); none when the server let it send its whole body. */
  error?: string;
}

/**
 * POSTs `BIG` bytes of a JSON string to `/notes` with Node's HTTP client,
 * waiting for the socket to take each piece: declared with `Content-Length`
 * and written as fast as it goes, or streamed slowly in chunks (256 KiB
 * every 10 ms, long after the limit is passed). Resolves once the body is
 * written and the answer read, or the client failed.
 */
function postBig(base: string, how: "declared" | "streamed"): Promise<Refused> {
  const bytes = Buffer.from(JSON.stringify({ body: "x".repeat(BIG) }));
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
  };
  if (how === "declared") headers["content-length"] = bytes.length;
  return new Promise((resolve) => {
    const out: Refused = {};
    let written = false;
    let read = false;
    const settle = (): void => {
      if ((written && read) || out.error !== undefined) resolve(out);
    };
    const req = request(`${base}/notes`, { method: "POST", headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        out.status = res.statusCode;
        out.contentType = res.headers["content-type"];
        out.type = (JSON.parse(text) as { type?: string }).type;
        read = true;
        settle();
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      out.error = e.code ?? e.message;
      settle();
    });
    // A connection closed under the body (Node's client may say nothing more once it has read the answer).
    req.on("close", () => {
      if (!written) out.error ??= "closed before the whole body was sent";
      settle();
    });
    void (async () => {
      const piece = how === "declared" ? 64 * 1024 : 256 * 1024;
      for (let at = 0; at < bytes.length && out.error === undefined; at += piece) {
        const more = req.write(bytes.subarray(at, at + piece));
        if (how === "streamed") await new Promise((r) => setTimeout(r, 10));
        else if (!more) await new Promise((r) => req.once("drain", r));
      }
      req.end(() => {
        written = true;
        settle();
      });
    })();
  });
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  doc: {
    type: string;
    status: number;
    errors: { location: string; detail: string }[];
  };
}

/** Writes `data` on a raw connection (in 4 KiB pieces when `paced`), reads until the server closes, parses the answer. */
function sendRaw(base: string, data: string, paced = false): Promise<RawAnswer> {
  const { port } = new URL(base);
  return new Promise((resolve, reject) => {
    let got = "";
    const s = net.connect(Number(port), "127.0.0.1", () => {
      void (async () => {
        if (!paced) return s.write(data);
        for (let i = 0; i < data.length && !s.destroyed; i += 4096) {
          s.write(data.slice(i, i + 4096));
          await new Promise((r) => setTimeout(r, 1));
        }
      })();
    });
    s.setEncoding("latin1");
    s.on("data", (d: string) => (got += d));
    s.on("error", () => undefined);
    s.on("close", () => {
      const split = got.indexOf("\r\n\r\n");
      if (split < 0) return reject(new Error(`no answer: ${JSON.stringify(got)}`));
      const [statusLine, ...lines] = got.slice(0, split).split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) headers[l.slice(0, l.indexOf(":")).toLowerCase()] = l.slice(l.indexOf(":") + 1).trim();
      try {
        resolve({
          status: Number(statusLine!.split(" ")[1]),
          headers,
          doc: JSON.parse(got.slice(split + 4)),
        });
      } catch {
        reject(new Error(`not a problem document: ${JSON.stringify(got)}`));
      }
    });
  });
}

/** The checks every server gets; `base()` is read when the tests run. */
function refusals(name: string, base: () => string, skip: () => boolean): void {
  describe(`${name}: what the body limit refuses`, () => {
    for (const how of ["declared", "streamed"] as const) {
      it(`answers a 16 MiB body ${how === "declared" ? "declared by Content-Length" : "streamed slowly in chunks"} with the 413 problem document`, async (t) => {
        if (skip()) t.skip();
        expect(await postBig(base(), how)).toEqual({
          status: 413,
          type: "/problems/body-too-large",
          contentType: "application/problem+json",
        });
        // And the service goes on answering.
        expect((await fetch(`${base()}/notes`)).status).toBe(200);
      });
    }
  });

  describe(`${name}: what Node's HTTP parser refuses`, () => {
    it("answers a header section past Node's limit with a 431 problem document, to a client still sending", async (t) => {
      if (skip()) t.skip();
      const a = await sendRaw(base(), `GET /notes HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(100_000)}\r\n\r\n`, true);
      expect(a.status).toBe(431);
      expect(a.headers["content-type"]).toBe("application/problem+json");
      expect(a.headers["connection"]).toBe("close");
      expect(a.doc).toMatchObject({
        type: "/problems/header-too-large",
        status: 431,
      });
      // The header is named when the line that passed the limit is in the piece being parsed; this one is not.
      expect(a.doc.errors.map((e) => e.location)).toEqual(["header"]);
    });

    it("answers a control byte in a header with a 400 problem document naming the header", async (t) => {
      if (skip()) t.skip();
      const a = await sendRaw(base(), "GET /notes HTTP/1.1\r\nHost: x\r\nX-Tenant: a\u0001b\r\n\r\n");
      expect(a.status).toBe(400);
      expect(a.headers["content-type"]).toBe("application/problem+json");
      expect(a.headers["connection"]).toBe("close");
      expect(Number(a.headers["content-length"])).toBe(Buffer.byteLength(JSON.stringify(a.doc)));
      expect(a.doc).toMatchObject({
        type: "/problems/malformed-request",
        status: 400,
        errors: [{ location: "header.x-tenant" }],
      });
    });

    it("answers a control byte in the request line with a 400 problem document at request-line", async (t) => {
      if (skip()) t.skip();
      const a = await sendRaw(base(), "GET /no\u0001tes HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(a.status).toBe(400);
      expect(a.doc).toMatchObject({
        type: "/problems/malformed-request",
        errors: [{ location: "request-line" }],
      });
    });
  });
}

const db: TestDatabase = await createTestDatabase("refusals");
let serve: ServeProcess | undefined;
let dev: ServeProcess | undefined;

beforeAll(async () => {
  receiver = await startReceiver(() => 204);
  const starting: Promise<unknown>[] = [startDev().then((d) => (dev = d))];
  if (db.kind === "pg") {
    const { ddl } = await compileFile(FILE);
    await db.executor.script(ddl);
    starting.push(
      startServe(FILE, ["--database-url", db.url!, "--hooks", HOOKS], {
        env: { ...process.env, REFUSALS_WEBHOOK_URL: receiver.url },
      }).then((s) => (serve = s)),
    );
  }
  await Promise.all(starting);
}, 120_000);

afterAll(async () => {
  await serve?.kill();
  await dev?.kill();
  await receiver?.close();
  await db.drop();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

refusals(
  "resc serve",
  () => serve!.base,
  () => serve === undefined,
);
refusals(
  "resc dev",
  () => dev!.base,
  () => false,
);

describe("a clean stop while the change feed and a webhook run", () => {
  /** Writes a note, lets the feed and the webhook worker take it up, then stops the process: its exit code. */
  async function writeThenStop(p: ServeProcess): Promise<number | null> {
    const res = await fetch(`${p.base}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ body: "written before the stop" }),
    });
    expect(res.status).toBe(201);
    // Nothing in flight: the write was answered; the feed and the webhooks poll in the background.
    await new Promise((r) => setTimeout(r, 1500));
    return p.stop();
  }

  it("resc dev: SIGTERM with nothing in flight exits 0 and logs no fault", async () => {
    const code = await writeThenStop(dev!);
    expect(dev!.output()).not.toMatch(/resc fault|503/);
    expect(code).toBe(0);
  });

  it("resc serve: SIGTERM with nothing in flight exits 0 and logs no fault", async (t) => {
    if (!serve) t.skip();
    const code = await writeThenStop(serve!);
    const errors = serve!
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{") && (JSON.parse(l) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
    expect(code).toBe(0);
  });
});
