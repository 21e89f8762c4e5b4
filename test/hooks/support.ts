/**
 * Helpers of the hooks, writes and builder tests: a schema compiled from
 * text, a database holding its DDL and seed rows, and an in-process client
 * for a Hono app mounted with whatever options a test needs.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Hono } from "hono";
import { buildDescriptor, compileSource, emitSql } from "../../compiler/index.js";
import { formatDiagnostics } from "../../grammar/index.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import type { Answer, TestClient } from "../support/service.js";

export type { Answer };

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The descriptor and DDL of a schema given as text; throws with code frames when it has errors. */
export function compileText(text: string, file = "inline.resource"): { service: ServiceDescriptor; ddl: string } {
  const r = compileSource(text, file);
  if (!r.ok) throw new Error(formatDiagnostics(r.diagnostics, text));
  return { service: buildDescriptor(r.schema), ddl: emitSql(r.schema) };
}

/** spec.resource compiled, and the reference application's seed. */
export async function specSchema(): Promise<{ service: ServiceDescriptor; ddl: string; seed: string }> {
  const text = await readFile(path.join(ROOT, "spec.resource"), "utf8");
  const seed = await readFile(path.join(ROOT, "examples/tracker/seed.sql"), "utf8");
  return { ...compileText(text, "spec.resource"), seed };
}

/** A fresh database holding `ddl` then `seed`. */
export async function databaseWith(label: string, ddl: string, seed = ""): Promise<TestDatabase> {
  const db = await createTestDatabase(label);
  await db.executor.script(ddl);
  if (seed !== "") await db.executor.script(seed);
  return db;
}

/** A {@link TestClient} whose requests may carry headers. */
export interface Client extends TestClient {
  request<T = any>(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Answer<T>>;
}

/** Sends requests to an in-process Hono app, parsing JSON answers. */
export function appClient(app: Hono): Client {
  const request = async <T>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === "string" ? body : JSON.stringify(body);
      init.headers = { ...headers, "content-type": "application/json" };
    }
    const res = await app.request(url, init);
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return { request, get: (url) => request("GET", url) };
}

/**
 * Mounts `service` on a fresh app with `options` and returns a client;
 * throws when mounting reports registration errors.
 */
export function mounted(service: ServiceDescriptor, options: MountOptions): Client {
  const app = new Hono();
  const r = mountService(app, service, options);
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return appClient(app);
}
