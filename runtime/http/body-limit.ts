/**
 * The size limit of write bodies (docs/http.md: 413 `body-too-large`), and
 * the read of those bodies under Node (docs/decisions/1345-body-read-from-node.md).
 *
 * Under `@hono/node-server`, the first touch of `c.req.raw.body` (Hono's
 * `bodyLimit` does it on every request) builds a WHATWG `Request` with an
 * `AbortController`, a `Headers` copy and a web stream over Node's request,
 * and `c.req.text()` then reads through that stream: about a tenth of a
 * small write's time in Node. Here, when the request is Node's own and
 * unread, the body is read from it directly, counted against the limit as
 * it arrives, and handed to Hono's body cache, so `c.req.text()` and
 * `c.req.json()` answer from it for every later reader. Elsewhere (a
 * `fetch`-style runtime, `app.request` in tests, HTTP/2) Hono's own
 * `bodyLimit` runs as before.
 */
import { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** U+FEFF, which the WHATWG UTF-8 decode that `Request.text()` uses drops from the start of a body. */
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Node's request behind `c` when the body can be read from it here: the
 * adapter is `@hono/node-server` over HTTP/1 (`c.env.incoming`), nothing has
 * read from the request yet, and no platform handed the body over already
 * (`rawBody`, as Google Cloud Functions do).
 */
function unreadNodeRequest(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  if (!(incoming instanceof IncomingMessage) || incoming.readableDidRead || "rawBody" in incoming) return undefined;
  return incoming;
}

/**
 * The body of `incoming` decoded as UTF-8 (invalid sequences replaced, a
 * leading byte order mark dropped, as `Request.text()` does), or undefined
 * as soon as more than `maxBytes` arrived (the request is paused then; the
 * 413 answer closes the connection). Rejects with the stream's error when
 * the client goes away mid-body.
 */
function readText(incoming: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        incoming.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      stop();
      const text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString("utf8");
      resolve(text.charCodeAt(0) === BYTE_ORDER_MARK ? text.slice(1) : text);
    };
    const onError = (e: Error): void => {
      stop();
      reject(e);
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
  });
}

/**
 * Middleware refusing a request body larger than `maxBytes` with
 * `tooLarge(c)`: at once when `Content-Length` says so, otherwise once that
 * many bytes arrived. Under Node it also reads the body (see the module
 * comment); the handlers read it with `c.req.text()` or `c.req.json()` as
 * anywhere else.
 */
export function limitBody(maxBytes: number, tooLarge: (c: Context) => Response): MiddlewareHandler {
  const elsewhere = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const incoming = unreadNodeRequest(c);
    if (incoming === undefined) return elsewhere(c, next);
    const declared = incoming.headers["content-length"];
    if (declared !== undefined && incoming.headers["transfer-encoding"] === undefined && Number(declared) > maxBytes)
      return tooLarge(c);
    const text = await readText(incoming, maxBytes);
    if (text === undefined) return tooLarge(c);
    // Hono keeps each body reading as a promise under its kind; its type says the value, its code (and every
    // reader) takes the promise. test/http/wire.test.ts reads the body both ways after this middleware.
    c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
    await next();
  };
}
