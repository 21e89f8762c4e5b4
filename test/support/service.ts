/**
 * Builds the service of a `.resource` file in-process, the way `resc dev`
 * does, so tests can send requests through Hono without sockets.
 */
import { readFile } from "node:fs/promises";
import { compileSource, buildDescriptor, emitSql } from "../../compiler/index.js";
import { formatDiagnostics } from "../../grammar/index.js";
import type { Schema } from "../../compiler/ir.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { createDevApp } from "../../cli/dev/app.js";

/** A compiled schema and its descriptor; throws with the code frames when the file has errors. */
export async function compileFile(file: string): Promise<{ schema: Schema; service: ServiceDescriptor; ddl: string }> {
  const source = await readFile(file, "utf8");
  const r = compileSource(source, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, source));
  return { schema: r.schema, service: buildDescriptor(r.schema), ddl: emitSql(r.schema) };
}

/** A parsed HTTP answer. */
export interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** Sends requests to an in-process app. */
export interface TestClient {
  request<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  get<T = any>(path: string): Promise<Answer<T>>;
}

/** Mounts `service` on a fresh app over `db` and returns a client for it. */
export function serviceClient(service: ServiceDescriptor, db: Executor, hooks?: Hooks): TestClient {
  const { app, mounted } = createDevApp(service, { db, hooks });
  if (!mounted.ok) throw new Error(JSON.stringify(mounted.errors));
  const request = async <T>(method: string, path: string, body?: unknown): Promise<Answer<T>> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { "content-type": "application/json" };
    }
    const res = await app.request(path, init);
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return { request, get: (path) => request("GET", path) };
}
