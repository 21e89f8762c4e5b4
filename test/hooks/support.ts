/**
 * Helpers of the hooks, writes and builder tests: a schema compiled from
 * text, a database holding its DDL and seed rows, and an in-process client
 * for a Hono app mounted with whatever options a test needs.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Hono } from "hono";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText, sendTo, type Answer, type TestClient } from "../support/service.js";
import { withDeclaredActions } from "../support/actions.js";
import { ungoverned } from "../support/ungoverned.js";

export { compileText, type Answer };

const ROOT = path.resolve(import.meta.dirname, "../..");

/**
 * spec.resource compiled without its access model (test/support/ungoverned.ts: these tests confine it with
 * hooks of their own), and the reference application's seed.
 */
export async function specSchema(): Promise<{ service: ServiceDescriptor; ddl: string; seed: string }> {
  const text = ungoverned(await readFile(path.join(ROOT, "spec.resource"), "utf8"));
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
  const request = <T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    sendTo<T>(app, method, url, body, headers);
  return { request, get: (url) => request("GET", url) };
}

/**
 * Mounts `service` on a fresh app with `options` (and the implementations
 * of its declared actions, test/support/actions.ts) and returns a client;
 * throws when mounting reports registration errors.
 */
export function mounted(service: ServiceDescriptor, options: MountOptions): Client {
  const app = new Hono();
  const r = mountService(app, service, { ...options, hooks: withDeclaredActions(service, options.hooks) });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return appClient(app);
}
