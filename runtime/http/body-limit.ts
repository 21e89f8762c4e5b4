/**
 * The size limit of write bodies (docs/http.md: 413 `body-too-large`), and
 * the read of those bodies under Node (docs/decisions/1345-body-read-from-node.md).
 *
 * Under `@hono/node-server`, the first touch of `c.req.raw.body` (Hono's
 * `bodyLimit` does it on every request) builds a WHATWG `Request` with an
 * `AbortController`, a `Headers` copy and a web stream over Node's request,
 * and `c.req.text()` then reads through that stream: about a tenth of a
 * small write's time in Node. Here, when the request is Node's own and
 * unread, the body is read from it directly by raw-body (the reader of
 * Express's body parsers), counted against the limit as it arrives, and
 * handed to Hono's body cache, so `c.req.text()` and `c.req.json()` answer
 * from it for every later reader. Elsewhere (a
 * `fetch`-style runtime, `app.request` in tests, HTTP/2) Hono's own
 * `bodyLimit` runs as before.
 */
import { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import getRawBody from "raw-body";

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

/** raw-body's `type` for a body past its limit (declared by `Content-Length` or counted as it arrived). */
const TOO_LARGE = "entity.too.large";

/**
 * Most bytes of a refused body read and dropped before the 413 is sent, in
 * bytes (as `@hono/node-server` bounds the bodies it drains), and the
 * longest wait for them, in milliseconds. Past either, the 413 goes at once
 * and the connection closes under a client that may still be sending
 * (docs/decisions/1362-parser-refusals.md).
 */
export const REFUSED_BODY_DRAIN = {
  maxBytes: 64 * 1024 * 1024,
  maxMillis: 30_000,
} as const;

/**
 * Reads the rest of a refused body and drops it, so that the client, which
 * may still be sending, reads the 413 instead of a reset connection: a
 * server closing its socket with unread bytes in it makes the kernel send
 * RST, and a client still writing sees EPIPE or ECONNRESET, never the answer
 * (as body-parser reads off the whole request before Express answers its
 * 413). Resolves once the body has ended, or at once when `declared` (its
 * `Content-Length`) is above the bound, or when more than the bound arrived
 * or it took longer (the request is paused again then). Never rejects: a
 * client that goes away ends the wait.
 */
function drainRefused(incoming: IncomingMessage, declared: number | undefined): Promise<void> {
  const { maxBytes, maxMillis } = REFUSED_BODY_DRAIN;
  if (incoming.complete || incoming.destroyed || (declared !== undefined && declared > maxBytes))
    return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const done = (): void => {
      clearTimeout(timer);
      incoming.off("data", onData);
      incoming.off("end", done);
      incoming.off("error", done);
      incoming.off("close", done);
      // Not read to its end: nothing more is read (the answer closes the connection).
      if (!incoming.complete) incoming.pause();
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      dropped += chunk.length;
      if (dropped > maxBytes) done();
    };
    const timer = setTimeout(done, maxMillis);
    timer.unref();
    incoming.on("data", onData);
    incoming.once("end", done);
    incoming.once("error", done);
    incoming.once("close", done);
    incoming.resume();
  });
}

/**
 * The body of `incoming` decoded as UTF-8 by raw-body (iconv-lite, as
 * Express reads bodies: invalid sequences replaced, a leading byte order
 * mark dropped, as `Request.text()` does), or undefined when it is larger
 * than `maxBytes`: known at once when `Content-Length` says so, otherwise
 * as soon as that many bytes arrived; the rest of such a body is then read
 * and dropped ({@link drainRefused}) before this resolves, so the 413 that
 * follows reaches a client still sending. Rejects with raw-body's error when
 * the client goes away mid-body or sends fewer bytes than it declared.
 */
async function readText(incoming: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const declared = incoming.headers["content-length"];
  const length = declared !== undefined && incoming.headers["transfer-encoding"] === undefined ? declared : null;
  try {
    return await getRawBody(incoming, { limit: maxBytes, length, encoding: "utf-8" });
  } catch (e) {
    if ((e as getRawBody.RawBodyError).type !== TOO_LARGE) throw e;
    await drainRefused(incoming, length === null ? undefined : Number(length));
    return undefined;
  }
}

/**
 * Middleware refusing a request body larger than `maxBytes` (bytes) with
 * `tooLarge(c)` (docs/http.md: 413 `body-too-large`): known at once when
 * `Content-Length` says so, otherwise once that many bytes arrived; under
 * Node the answer waits until the rest of the body was read and dropped,
 * within {@link REFUSED_BODY_DRAIN}. Under
 * Node it also reads the body (see the module comment); the handlers read
 * it with `c.req.text()` or `c.req.json()` as anywhere else. A body cut
 * short by the client rejects the request with raw-body's error, which
 * reaches the app's error handler as any handler's error would.
 */
export function limitBody(maxBytes: number, tooLarge: (c: Context) => Response): MiddlewareHandler {
  const elsewhere = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async (c, next) => {
    const incoming = unreadNodeRequest(c);
    if (incoming === undefined) return elsewhere(c, next);
    const text = await readText(incoming, maxBytes);
    if (text === undefined) return tooLarge(c);
    // Hono keeps each body reading as a promise under its kind; its type says the value, its code (and every
    // reader) takes the promise. test/http/body-limit.test.ts reads the body both ways after this middleware.
    c.req.bodyCache.text = Promise.resolve(text) as unknown as string;
    await next();
  };
}
