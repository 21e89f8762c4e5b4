/**
 * The change feed's tests' side: a real HTTP server around a mounted
 * service (streams need sockets, not `app.request`), and a reader of a
 * Server-Sent Events stream parsed by `eventsource-parser`.
 */
import { serve, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { AddressInfo } from "node:net";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";

/** A service listening on 127.0.0.1; `close` ends its feed's streams, then the server. */
export interface Served {
  url: string;
  close(): Promise<void>;
}

/** Mounts `service` with `options` on a server on an ephemeral port. */
export async function serveService(service: ServiceDescriptor, options: Omit<MountOptions, "signal">): Promise<Served> {
  const app = new Hono();
  const stop = new AbortController();
  const r = mountService(app, service, { ...options, signal: stop.signal });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      stop.abort();
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One received SSE message; `data` parsed as JSON. */
export interface Received {
  id?: string;
  event: string;
  data: unknown;
}

/** An open stream: messages arrive in `messages`; `next` waits for more. */
export interface Stream {
  status: number;
  headers: Headers;
  messages: Received[];
  /** Ids of `id:`-only messages and comments too: the last id the stream gave, as a browser keeps it. */
  lastId(): string | undefined;
  /** How many comment lines (heartbeats) have arrived. */
  comments(): number;
  /** Resolves once `count` messages have arrived in all, or rejects after `ms` milliseconds with what came. */
  until(count: number, ms?: number): Promise<Received[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream; a refusal (not 200) is returned with its body as `messages` empty. */
export async function openStream(
  url: string,
  headers: Record<string, string> = {},
): Promise<Stream & { body?: unknown }> {
  const abort = new AbortController();
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const messages: Received[] = [];
  let last: string | undefined;
  let comments = 0;
  let waiters: (() => void)[] = [];
  if (res.status !== 200) {
    const body = (await res.json()) as unknown;
    return {
      status: res.status,
      headers: res.headers,
      messages,
      body,
      lastId: () => undefined,
      comments: () => 0,
      until: () => Promise.reject(new Error(`status ${res.status}`)),
      ended: Promise.resolve(),
      close: () => abort.abort(),
    };
  }
  const parser = createParser({
    onEvent(m: EventSourceMessage) {
      if (m.id !== undefined) last = m.id;
      messages.push({
        ...(m.id !== undefined ? { id: m.id } : {}),
        event: m.event ?? "message",
        data: JSON.parse(m.data),
      });
      for (const w of waiters) w();
    },
    onRetry() {},
  });
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        // An `id:` line without data sets the last id but dispatches nothing (the HTML standard's parsing).
        for (const m of text.matchAll(/^id: (.*)$/gm)) last = m[1];
        comments += text.match(/^:/gm)?.length ?? 0;
        parser.feed(text);
      }
    } catch {
      // aborted by close()
    }
    for (const w of waiters) w();
  })();
  return {
    status: res.status,
    headers: res.headers,
    messages,
    lastId: () => last,
    comments: () => comments,
    async until(count, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (messages.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`got ${messages.length} of ${count} messages: ${JSON.stringify(messages)}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.min(left, 100));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
        waiters = [];
      }
      return messages.slice(0, count);
    },
    ended,
    close: () => abort.abort(),
  };
}
