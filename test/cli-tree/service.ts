/**
 * The reference application served on a real port for the client and
 * command-tree tests: spec.resource's DDL and examples/tracker/seed.sql in a
 * fresh database, the schema without its access model
 * (test/support/ungoverned.ts), mounted by `createDevApp` with trivial hooks of our own
 * (every confined table scoped to the first org, soft-deleted tasks hidden,
 * read-only tenant and author columns stamped on create), so these tests
 * depend on no application code.
 */
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { serve } from "@hono/node-server";
import { createDevApp } from "../../cli/dev/app.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { and, cmp, type Predicate } from "../../runtime/predicate.js";
import { createTestDatabase, type TestDatabase } from "../support/db.js";
import { compileText } from "../support/service.js";
import { ungovernedSpecText } from "../support/ungoverned.js";
import { declaredActions } from "../support/actions.js";

const ROOT = path.resolve(import.meta.dirname, "../..");

/** The seed's first org and one of its users. */
export const ORG = "00000000-0000-4000-8000-000000000001";
export const USER = "00000000-0000-4000-8000-000000000101";

/** A request as the server received it. */
export interface SeenRequest {
  method: string;
  url: string;
  authorization: string | null;
  /** The conditional-request header, when one was sent. */
  ifMatch: string | null;
  body: string;
}

/** A running service. */
export interface RunningService {
  /** `http://127.0.0.1:<port>` */
  url: string;
  service: ServiceDescriptor;
  db: TestDatabase;
  /** Every request line the server logged (`GET /tasks?… 200 3ms`). */
  log: string[];
  /** Every request as it arrived: method, URL, Authorization header, body text. */
  requests: SeenRequest[];
  stop(): Promise<void>;
}

/** Hooks confining every table that needs it to {@link ORG}, and stamping read-only columns. */
export function trivialHooks(service: ServiceDescriptor): Hooks {
  const beforeQuery: NonNullable<Hooks["beforeQuery"]> = {};
  const beforeCreate: NonNullable<Hooks["beforeCreate"]> = {};
  for (const t of service.tables) {
    const hasOrg = t.columns.some((c) => c.name === "org_id");
    if (t.scoped || t.softDeleteColumn !== undefined) {
      const parts: Predicate[] = [];
      if (hasOrg) parts.push(cmp("org_id", "eq", ORG));
      if (t.softDeleteColumn !== undefined) parts.push(cmp(t.softDeleteColumn, "isnull"));
      beforeQuery[t.name] = () => (parts.length === 0 ? undefined : and(...parts));
    }
    const stamps: Record<string, string> = {};
    if (hasOrg) stamps.org_id = ORG;
    if (t.columns.some((c) => c.name === "author_id" && c.readOnly)) stamps.author_id = USER;
    if (Object.keys(stamps).length > 0) beforeCreate[t.name] = (_ctx, values) => ({ ...values, ...stamps });
  }
  return { beforeQuery, beforeCreate, actions: declaredActions(service) };
}

/** Serves spec.resource over a fresh, seeded database on 127.0.0.1 and an ephemeral port. */
export async function startTracker(): Promise<RunningService> {
  const { service, ddl } = compileText(ungovernedSpecText(), "spec.resource");
  const db = await createTestDatabase("client");
  await db.executor.script(ddl);
  await db.executor.script(readFileSync(path.join(ROOT, "examples/tracker/seed.sql"), "utf8"));
  const log: string[] = [];
  // Aborted by stop(): open change feed streams end instead of holding the server open.
  const stopping = new AbortController();
  const { app, mounted } = createDevApp(service, {
    db: db.executor,
    hooks: trivialHooks(service),
    log: (l) => log.push(l),
    signal: stopping.signal,
  });
  if (!mounted.ok) throw new Error(JSON.stringify(mounted.errors));
  const requests: SeenRequest[] = [];
  const fetch = async (req: Request): Promise<Response> => {
    const body = req.method === "GET" || req.method === "HEAD" ? "" : await req.clone().text();
    requests.push({
      method: req.method,
      url: req.url,
      authorization: req.headers.get("authorization"),
      ifMatch: req.headers.get("if-match"),
      body,
    });
    return app.fetch(req);
  };
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch, hostname: "127.0.0.1", port: 0 }, () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    service,
    db,
    log,
    requests,
    async stop() {
      stopping.abort();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.drop();
    },
  };
}
