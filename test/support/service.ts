/**
 * Builds the service of a `.resource` file in-process, the way `resc dev`
 * does, so tests can send requests through Hono without sockets.
 */
import { readFile } from "node:fs/promises";
import { compileSource, buildDescriptor, emitSql } from "../../compiler/index.js";
import { formatDiagnostics } from "../../grammar/index.js";
import type { Schema } from "../../language/ir.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { createDevApp } from "../../cli/dev/app.js";

/** A compiled schema, its descriptor and DDL, from `.resource` text; throws with the code frames when it has errors. */
export function compileText(
  text: string,
  file = "inline.resource",
): { schema: Schema; service: ServiceDescriptor; ddl: string } {
  const r = compileSource(text, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, text));
  return { schema: r.schema, service: buildDescriptor(r.schema), ddl: emitSql(r.schema) };
}

/** {@link compileText} of a file. */
export async function compileFile(file: string): Promise<{ schema: Schema; service: ServiceDescriptor; ddl: string }> {
  return compileText(await readFile(file, "utf8"), file);
}

/** A parsed HTTP answer. */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * Sends `method path` to an in-process Hono app: `body` as JSON (a string
 * as it is) with `content-type: application/json` unless `headers` name
 * one. The answer's `body` is the parsed JSON, the text when it is not
 * JSON, undefined when empty.
 */
export async function sendTo<T = unknown>(
  app: { request(path: string, init: RequestInit): Response | Promise<Response> },
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  const res = await app.request(path, init);
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Sends requests to an in-process app. */
export interface TestClient {
  request<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
  get<T = any>(path: string): Promise<Answer<T>>;
}

/** Mounts `service` on a fresh app over `db` and returns a client for it. */
export function serviceClient(service: ServiceDescriptor, db: Executor, hooks?: Hooks): TestClient {
  const { app, mounted } = createDevApp(service, { db, hooks });
  if (!mounted.ok) throw new Error(JSON.stringify(mounted.errors));
  const request = <T>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer<T>> => sendTo<T>(app, method, path, body, headers);
  return { request, get: (path) => request("GET", path) };
}
