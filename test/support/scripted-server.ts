/**
 * A real HTTP server on 127.0.0.1 that answers each request with the next
 * step of a script, and records the requests: for the clients' behaviour on
 * refusals, failures and broken connections
 * (docs/decisions/1361-feed-positions-and-client-retries.md).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: a status with a body, a change feed stream, or a connection cut before any answer. */
export type Step =
  { status: number; body?: unknown; headers?: Record<string, string> } | { stream: string[] } | { cut: true };

/** A running script; `requests` are the method, URL and headers of every request, in order. */
export interface Scripted {
  url: string;
  requests: { method: string; url: string; headers: IncomingMessage["headers"] }[];
  close(): Promise<void>;
}

/** Serves `steps` in order; once they run out, the last one repeats. A `stream` stays open until the server closes. */
export async function scriptedServer(steps: Step[]): Promise<Scripted> {
  const requests: Scripted["requests"] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const step = steps[Math.min(requests.length, steps.length - 1)]!;
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    if ("cut" in step) {
      req.socket.destroy();
      return;
    }
    if ("stream" in step) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      for (const m of step.stream) res.write(m);
      open.add(res);
      res.on("close", () => open.delete(res));
      return;
    }
    const json = step.body !== undefined;
    res.writeHead(step.status, {
      ...(json ? { "content-type": "application/problem+json" } : {}),
      ...step.headers,
    });
    res.end(json ? JSON.stringify(step.body) : "");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A problem document of `status` naming `location`, as the service writes one. */
export function problemBody(status: number, location: string, detail: string): Record<string, unknown> {
  return {
    type: status === 404 ? "/problems/not-found" : status >= 500 ? "/problems/internal" : "/problems/invalid-query",
    title: status >= 500 ? "Internal Server Error" : "Bad Request",
    status,
    detail,
    errors: [{ location, detail }],
  };
}
