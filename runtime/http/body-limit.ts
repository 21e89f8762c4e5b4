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
 * The body of `incoming` decoded as UTF-8 by raw-body (iconv-lite, as
 * Express reads bodies: invalid sequences replaced, a leading byte order
 * mark dropped, as `Request.text()` does), or undefined when it is larger
 * than `maxBytes`: at once when `Content-Length` says so, otherwise as
 * soon as that many bytes arrived (raw-body pauses the request then; the
 * 413 answer closes the connection). Rejects with raw-body's error when
 * the client goes away mid-body or sends fewer bytes than it declared.
 */
async function readText(incoming: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  const declared = incoming.headers["content-length"];
  const length = declared !== undefined && incoming.headers["transfer-encoding"] === undefined ? declared : null;
  try {
    return await getRawBody(incoming, { limit: maxBytes, length, encoding: "utf-8" });
  } catch (e) {
    if ((e as getRawBody.RawBodyError).type === TOO_LARGE) return undefined;
    throw e;
  }
}

/**
 * Middleware refusing a request body larger than `maxBytes` (bytes) with
 * `tooLarge(c)` (docs/http.md: 413 `body-too-large`): at once when
 * `Content-Length` says so, otherwise once that many bytes arrived. Under
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
