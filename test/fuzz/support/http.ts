/**
 * A raw in-process client for the fuzz and fault suites: unlike
 * `test/support/service.ts` it sends the path, method, headers and body
 * text exactly as generated (a body need not be JSON, a path need not be
 * well formed), so the properties see what a hostile client could send.
 */
import { Hono } from "hono";
import type { ServiceDescriptor } from "../../../runtime/descriptor.js";
import type { Executor } from "../../../runtime/exec/executor.js";
import { mountService, type MountOptions } from "../../../runtime/http/mount.js";
import { problemResponse } from "../../../runtime/http/respond.js";
import { ProblemError } from "../../../runtime/problem.js";

/** One request as generated: `path` holds the query string too. */
export interface RawRequest {
  method: string;
  path: string;
  /** Body text, sent as is; absent means no body. */
  body?: string;
  /** Content type of the body; default `application/json` when a body is sent. */
  contentType?: string;
}

/** One answer: status, headers, raw text, and the JSON value when the text parses. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed body; `undefined` when the body is empty or not JSON. */
  json: unknown;
}

/** Sends raw requests to one mounted app. */
export interface RawClient {
  readonly app: Hono;
  send(req: RawRequest): Promise<RawAnswer>;
}

/**
 * Mounts `service` over `db` on an app shaped like the one of `resc dev`
 * (problem documents for unknown routes and unexpected faults) and returns
 * a raw client. Faults the runtime answers with a 5xx are collected in
 * `logged` instead of printed, so a property can report them.
 *
 * @param options extra mount options (a smaller body limit, hooks)
 */
export function rawClient(
  service: ServiceDescriptor,
  db: Executor,
  options: Partial<MountOptions> = {},
): RawClient & { logged: unknown[] } {
  const logged: unknown[] = [];
  const app = new Hono();
  app.notFound((c) => problemResponse(c, new ProblemError(404, "not-found", "No route matches.")));
  app.onError((e, c) => {
    logged.push(e);
    return problemResponse(c, new ProblemError(500, "internal", "The request could not be completed."));
  });
  const mounted = mountService(app, service, { logError: (e) => logged.push(e), ...options, db });
  if (!mounted.ok) throw new Error(JSON.stringify(mounted.errors));
  return {
    app,
    logged,
    async send(req: RawRequest): Promise<RawAnswer> {
      const init: RequestInit = { method: req.method };
      // A GET or HEAD cannot carry a body in the Fetch API; a stray one is dropped.
      if (req.body !== undefined && req.method.toUpperCase() !== "GET" && req.method.toUpperCase() !== "HEAD") {
        init.body = req.body;
        init.headers = { "content-type": req.contentType ?? "application/json" };
      }
      const res = await app.request(req.path, init);
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : undefined;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
  };
}
