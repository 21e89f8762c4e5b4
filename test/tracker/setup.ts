/**
 * The tracker app in-process over a fresh PostgreSQL test database holding
 * `examples/tracker/schema.sql` and `seed.sql`, with helpers to sign in and
 * send requests as a seeded user.
 */
import { readFileSync } from "node:fs";
import type { Hono } from "hono";
import { createTrackerApp } from "../../examples/tracker/app.js";
import { SCHEMA_FILE, SEED_FILE } from "../../examples/tracker/database.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { sendTo } from "../support/service.js";

/** The secret the test app signs with (32 bytes or more). */
export const SECRET = "test-secret-of-the-tracker-0123456789abcdef";

/** Seeded ids (examples/tracker/seed.sql). */
export const ACME = "00000000-0000-4000-8000-000000000001";
export const GLOBEX = "00000000-0000-4000-8000-000000000002";
export const ADA = "00000000-0000-4000-8000-000000000101";
export const ALAN = "00000000-0000-4000-8000-000000000102";
export const GRACE = "00000000-0000-4000-8000-000000000201";

/** A parsed answer. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A running tracker over its own database. */
export interface Tracker {
  app: Hono;
  db: TestDatabase;
  /** Every line the app logged (requests and audit). */
  logs: string[];
  /** Every fault the app logged as a 5xx. */
  faults: unknown[];
  request<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Reply<T>>;
  /** Signs in with the seed's password and returns the token. */
  login(email: string): Promise<string>;
  /** Runs SQL directly on the test database (text columns). */
  sql(text: string, values?: (string | null)[]): Promise<Record<string, string | null>[]>;
  drop(): Promise<void>;
}

/** Creates the database, applies DDL and seed, builds the app. */
export async function startTracker(label: string): Promise<Tracker> {
  const db = await createTestDatabase(`tracker_${label}`);
  await db.executor.script(readFileSync(SCHEMA_FILE, "utf8"));
  await db.executor.script(readFileSync(SEED_FILE, "utf8"));
  const logs: string[] = [];
  const faults: unknown[] = [];
  const app = createTrackerApp({
    db: db.executor,
    jwtSecret: SECRET,
    log: (l) => logs.push(l),
    logError: (e) => faults.push(e),
  });
  const request: Tracker["request"] = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    const { status, headers: answered, body } = await sendTo(app, method, path, options.body, headers);
    return { status, headers: answered, body: body as never };
  };
  return {
    app,
    db,
    logs,
    faults,
    request,
    async login(email) {
      const r = await request<{ token: string }>("POST", "/auth/login", { body: { email, password: "demo-password" } });
      if (r.status !== 200) throw new Error(`login of ${email} answered ${r.status}`);
      return r.body.token;
    },
    async sql(text, values = []) {
      return (await db.executor.query({ text, values })).rows;
    },
    drop: () => db.drop(),
  };
}
