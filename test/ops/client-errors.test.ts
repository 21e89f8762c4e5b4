/**
 * The problem documents of what Node's HTTP parser refuses
 * (docs/decisions/1362-parser-refusals.md): each parser error maps to its
 * kind, status and location, and `answerClientErrors` on a plain Node
 * server answers a header section over a small limit with the 431 document
 * naming the header, and a request timeout with the 408 one. The same over
 * `resc serve` and `resc dev`: test/serve/refusals.test.ts.
 */
import { createServer, type Server } from "node:http";
import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { answerClientErrors, parserProblem } from "../../runtime/ops/client-errors.js";

/** A parser error as Node raises it. */
function parserError(code: string, reason: string, raw = "", at = raw.length): Error {
  return Object.assign(new Error(`Parse Error: ${reason}`), {
    code,
    reason,
    rawPacket: Buffer.from(raw, "latin1"),
    bytesParsed: at,
  });
}

describe("parserProblem", () => {
  it("maps each parser error to its kind, status and location", () => {
    const cases: [Error, string, number, string][] = [
      [
        parserError("HPE_HEADER_OVERFLOW", "Header overflow", "GET / HTTP/1.1\r\nX-Big: aaaa"),
        "header-too-large",
        431,
        "header.x-big",
      ],
      [
        parserError("HPE_INVALID_HEADER_TOKEN", "Invalid header value char", "GET / HTTP/1.1\r\nX-Org: a\u0001"),
        "malformed-request",
        400,
        "header.x-org",
      ],
      [
        parserError("HPE_INVALID_HEADER_TOKEN", "Invalid header token", "GET / HTTP/1.1\r\nX Org"),
        "malformed-request",
        400,
        "header",
      ],
      [
        parserError("HPE_INVALID_URL", "Invalid char in url path", "GET /a\u0001"),
        "malformed-request",
        400,
        "request-line",
      ],
      [parserError("HPE_INVALID_METHOD", "Invalid method encountered", "G@"), "malformed-request", 400, "request-line"],
      [parserError("HPE_INVALID_CHUNK_SIZE", "Invalid character in chunk size"), "malformed-request", 400, "body"],
      [parserError("HPE_CHUNK_EXTENSIONS_OVERFLOW", "Chunk extensions overflow"), "body-too-large", 413, "body"],
      [
        Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" }),
        "request-timeout",
        408,
        "request",
      ],
    ];
    for (const [e, kind, status, location] of cases) {
      const doc = parserProblem(e, 16384).toDocument();
      expect({ type: doc.type, status: doc.status, location: doc.errors[0]?.location }, kind).toEqual({
        type: `/problems/${kind}`,
        status,
        location,
      });
    }
    // Never the header's value, only its name.
    const d = parserProblem(
      parserError("HPE_INVALID_HEADER_TOKEN", "x", "GET / HTTP/1.1\r\nAuthorization: secret\u0001"),
    );
    expect(JSON.stringify(d.toDocument())).not.toContain("secret");
  });
});

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

/** Sends `data` raw and resolves with everything the server wrote before it closed. */
function raw(port: number, data: string): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    const s = net.connect(port, "127.0.0.1", () => s.write(data));
    s.setEncoding("latin1");
    s.on("data", (d: string) => (got += d));
    s.on("error", () => undefined);
    s.on("close", () => resolve(got));
  });
}

describe("answerClientErrors on a Node server", () => {
  it("answers a header section over the server's limit with the 431 document naming the limit", async () => {
    server = createServer({ maxHeaderSize: 1024 }, (_q, r) => r.end("ok"));
    answerClientErrors(server);
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    const got = await raw(
      (server.address() as AddressInfo).port,
      `GET / HTTP/1.1\r\nX-Big: ${"a".repeat(2000)}\r\n\r\n`,
    );
    expect(got).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(got).toContain("\r\nConnection: close\r\n");
    const doc = JSON.parse(got.slice(got.indexOf("\r\n\r\n") + 4)) as { type: string; detail: string };
    expect(doc).toMatchObject({ type: "/problems/header-too-large", detail: expect.stringContaining("1024 bytes") });
  });

  it("answers a request that does not arrive in time with the 408 document", async () => {
    // Node checks its timeouts every connectionsCheckingInterval ms.
    server = createServer({ requestTimeout: 300, headersTimeout: 300, connectionsCheckingInterval: 100 }, (_q, r) =>
      r.end("ok"),
    );
    answerClientErrors(server);
    await new Promise<void>((r) => server!.listen(0, "127.0.0.1", () => r()));
    const got = await raw((server.address() as AddressInfo).port, "GET / HTTP/1.1\r\nHost: x\r\n");
    expect(got).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(got).toContain("/problems/request-timeout");
  });
});
