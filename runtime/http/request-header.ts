/**
 * Reading a request header without building a WHATWG `Headers` object
 * (docs/decisions/1341-layer-without-headers-objects.md). Under
 * `@hono/node-server`, `c.req.header(name)` copies every header of the
 * request into a new `Headers` the first time it is called; a read by id
 * that only asks for `If-None-Match` paid for that copy on every request
 * (README, "Tuning"). Node has already parsed the headers into
 * `IncomingMessage.headers`, lowercase, repeated ones joined with `, ` as
 * `Headers.get` joins them, so they are read there when the app runs on
 * Node, and through Hono anywhere else (`app.request` in tests, a
 * fetch-style runtime).
 */
import type { Context } from "hono";

/** What `@hono/node-server` passes as `c.env`: Node's request, of which only the parsed headers are read here. */
interface NodeBindings {
  incoming: { headers: Record<string, string | string[] | undefined>; rawHeaders?: readonly string[] };
}

/** Node's request when the app runs under `@hono/node-server`, else undefined. */
function nodeBindings(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  if (typeof env !== "object" || env === null) return undefined;
  const { incoming } = env;
  return incoming && typeof incoming === "object" && typeof incoming.headers === "object"
    ? (env as NodeBindings)
    : undefined;
}

/**
 * The value of request header `name` (lowercase), or undefined when the
 * request has none. Use it for headers whose repetitions Node joins
 * (`if-none-match`, `x-request-id`); Node keeps only the first of a few
 * others (`content-type`, `authorization`), which `Headers` would join, so
 * those are read with `c.req.header`.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const node = nodeBindings(c);
  if (!node) return c.req.header(name);
  const value = node.incoming.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Every line of request header `name` (lowercase) the request carried, in
 * order; empty when it has none. For a header a request must carry once
 * (`authorization`): Node keeps only the first of its repetitions in its
 * parsed headers, so under node-server the raw lines are counted (only when
 * the header is there at all); elsewhere `Headers` has already joined them
 * with `, `, which is one line here and left to the caller to tell apart.
 */
export function requestHeaderLines(c: Context, name: string): string[] {
  const node = nodeBindings(c);
  if (!node) {
    const value = c.req.header(name);
    return value === undefined ? [] : [value];
  }
  const value = node.incoming.headers[name];
  if (value === undefined) return [];
  const raw = node.incoming.rawHeaders;
  if (!raw) return Array.isArray(value) ? value : [value];
  const lines: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) lines.push(raw[i + 1]!);
  return lines;
}
