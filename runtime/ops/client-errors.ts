/**
 * What a server answers when Node's HTTP parser refuses a request before
 * any route sees it: a header section larger than the server reads, a
 * control byte in the request line or a header, a malformed
 * `Content-Length` or chunk, a request that took too long to arrive. Node
 * answers these itself with a bare status line and no body; here, as every
 * other refusal, they are problem documents (docs/http.md, "Problem
 * documents"; docs/decisions/1362-parser-refusals.md). `resc dev`, `resc
 * serve`, the project `resc init` writes and the tracker install it.
 */
import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { problem, type ProblemError } from "../problem.js";

/** A server that emits Node's `clientError` event (`http.Server`, `https.Server`, what `@hono/node-server`'s `serve` returns). */
export interface ClientErrorSource {
  on(event: "clientError", listener: (err: Error, socket: Duplex) => void): unknown;
}

/** What Node's parser attaches to the errors it raises (`HPE_*` codes, from llhttp). */
interface ParserError extends Error {
  code?: string;
  /** llhttp's sentence, e.g. `Invalid header value char`. */
  reason?: string;
  /** The chunk being parsed when the error was found, and the offset in it. */
  rawPacket?: Buffer;
  bytesParsed?: number;
}

/** Codes of errors found in the request line (method, target, version). */
const REQUEST_LINE = new Set(["HPE_INVALID_METHOD", "HPE_INVALID_URL", "HPE_INVALID_VERSION"]);

/** Codes of errors found in the framing of the body. */
const BODY = new Set(["HPE_INVALID_CHUNK_SIZE", "HPE_CHUNK_EXTENSIONS_OVERFLOW", "HPE_INVALID_EOF_STATE"]);

/** A header name as RFC 9110 §5.1 spells one (a token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** How long a refused connection stays open for reading after the answer, in milliseconds, so the client reads it. */
const LINGER_MS = 1000;

/**
 * The header whose line holds the byte Node's parser stopped at, read from
 * the chunk it was parsing: its name in lower case when that line is a
 * header line with a token for a name, else undefined (the line began in an
 * earlier chunk, or the name itself is malformed). Never the value.
 */
function headerAt(e: ParserError): string | undefined {
  const raw = e.rawPacket;
  if (!raw || e.bytesParsed === undefined) return undefined;
  const end = Math.min(e.bytesParsed, raw.length);
  const start = raw.lastIndexOf(0x0a, end - 1);
  if (start < 0) return undefined;
  const line = raw.subarray(start + 1, end).toString("latin1");
  const colon = line.indexOf(":");
  const name = colon > 0 ? line.slice(0, colon) : undefined;
  return name !== undefined && TOKEN.test(name) ? name.toLowerCase() : undefined;
}

/**
 * The problem answering parser error `e`: 431 `header-too-large` for a
 * header section past the server's limit, 408 `request-timeout` for a
 * request that did not arrive in time, 413 `body-too-large` for chunk
 * extensions past Node's limit, otherwise 400 `malformed-request`; the one
 * item's location is `request-line`, `header.<name>` (or `header` when the
 * name cannot be read), `body`, or `request`.
 * @param headerLimit the server's header limit in bytes, named in the 431
 */
export function parserProblem(e: Error, headerLimit: number = maxHeaderSize): ProblemError {
  const err = e as ParserError;
  const code = err.code ?? "";
  const said = err.reason ?? err.message;
  if (code === "HPE_HEADER_OVERFLOW") {
    const at = headerAt(err);
    return problem("header-too-large", `The request's header section is larger than ${headerLimit} bytes.`, [
      {
        location: at ? `header.${at}` : "header",
        detail: `the header section passes ${headerLimit} bytes`,
      },
    ]);
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return problem("request-timeout", "The request did not arrive in time.", [
      {
        location: "request",
        detail: "the request's headers or body did not arrive in time",
      },
    ]);
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW")
    return problem("body-too-large", "The body's chunk extensions are larger than this server reads.", [
      { location: "body", detail: said },
    ]);
  let location = "request";
  if (REQUEST_LINE.has(code)) location = "request-line";
  else if (BODY.has(code)) location = "body";
  else if (code.startsWith("HPE_")) {
    const at = headerAt(err);
    location = at ? `header.${at}` : "header";
  }
  return problem("malformed-request", `The request is not valid HTTP/1.1: ${said}.`, [{ location, detail: said }]);
}

/** The whole HTTP/1.1 answer carrying `p`, closing the connection. */
function answerText(p: ProblemError): string {
  const body = JSON.stringify(p.toDocument());
  return (
    `HTTP/1.1 ${p.status} ${STATUS_CODES[p.status] ?? ""}\r\n` +
    "Content-Type: application/problem+json\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Connection: close\r\n\r\n" +
    body
  );
}

/** Sockets answered already: after a parse error Node may report the same connection again as more bytes arrive. */
const answered = new WeakSet<Duplex>();

/**
 * Answers every request `server`'s HTTP parser refuses with a problem
 * document ({@link parserProblem}) instead of Node's bare status line: a
 * complete HTTP/1.1 response, `Content-Type: application/problem+json`,
 * `Connection: close`, then the socket is ended; it is read (and what
 * arrives dropped) for a second more, so a client still sending reads the
 * answer rather than a reset. Nothing is written to a socket that is no
 * longer writable, was reset by the client (`ECONNRESET`), or already
 * carries part of a response (a request pipelined behind one being
 * answered); such a socket is destroyed, as Node does.
 */
export function answerClientErrors(server: ClientErrorSource): void {
  const limit = (server as { maxHeaderSize?: number }).maxHeaderSize ?? maxHeaderSize;
  server.on("clientError", (e, socket) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const code = (e as ParserError).code;
    // Node's own rule (lib/_http_server.js socketOnError): never write into a response already under way.
    const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (code === "ECONNRESET" || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(answerText(parserProblem(e, limit)));
    if (inFlight) {
      socket.destroy();
      return;
    }
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    linger.unref();
    socket.once("close", () => clearTimeout(linger));
  });
}
