/**
 * What the idempotency suites share: each database kind they run on (the
 * server when one answers, and always the embedded PGlite, whose one
 * connection is where a keyed request once waited on itself), a bounded wait
 * for an answer, and the back office schema served with the x-org-id hooks
 * module (test/fixtures-hooks/tenant.ts).
 */
import { PGlite } from "@electric-sql/pglite";
import type { Context, Hono } from "hono";
import { createDevApp } from "../../cli/dev/app.js";
import { pgliteExtensions } from "../../runtime/exec/pglite-extensions.js";
import { createPgliteExecutor } from "../../runtime/exec/pglite.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Hooks } from "../../runtime/hooks.js";
import { createTestDatabase, findServer, type TestDatabase } from "../support/db.js";
import { compileFile, sendTo, type Answer } from "../support/service.js";
import { hookData as tenantData, hooks as tenantHooks } from "../fixtures-hooks/tenant.js";
import { backOfficeActions as officeActions } from "./fixtures/back-office-actions.js";

/** The kinds the suites run on: `pg` when a server answers (and PGlite is not forced), `pglite` always. */
export async function databaseKinds(): Promise<("pg" | "pglite")[]> {
  const server = process.env.RESC_TEST_PGLITE === "1" ? undefined : await findServer();
  return server ? ["pg", "pglite"] : ["pglite"];
}

/** A fresh database of `kind`: PGlite in memory, or a database of its own on the server. */
export async function freshDatabase(kind: "pg" | "pglite", label: string): Promise<TestDatabase> {
  if (kind === "pg") return createTestDatabase(label);
  const pglite = new PGlite({ extensions: await pgliteExtensions() });
  await pglite.waitReady;
  return {
    kind: "pglite",
    pglite,
    executor: createPgliteExecutor(pglite),
    drop: () => pglite.close(),
  };
}

/**
 * `answer`, or a rejection saying that `what` got no answer within `ms`
 * milliseconds: a request that waits on itself fails its test with a
 * sentence instead of holding the run.
 */
export async function within<T>(answer: Promise<T>, what: string, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([answer, silence]);
  } finally {
    clearTimeout(timer);
  }
}

/** Tenants of the back office (any uuid the x-org-id hooks module is given). */
export const ORG_A = "00000000-0000-4000-8000-00000000000a";
export const ORG_B = "00000000-0000-4000-8000-00000000000b";
/** The org the x-org-id module acts for when a request names none. */
export const ORG_DEFAULT = "00000000-0000-4000-8000-000000000001";

export const BACK_OFFICE = "test/idempotency/fixtures/back-office.resource";

/** The back office's actions, finding the org as the x-org-id module does (its hook data). */
export const backOfficeActions = officeActions((ctx) => String(ctx.data?.orgId));

/** A served back office: its app, a sender, and SQL on its database. */
export interface BackOffice {
  app: Hono;
  service: ServiceDescriptor;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Answer<any>>;
  rows(text: string, values?: (string | null)[]): Promise<Record<string, string | null>[]>;
}

/** Options of {@link serveBackOffice}: what the application gives besides the tenancy hooks. */
export interface BackOfficeOptions {
  /** Default: the x-org-id module's `hookData`; `null` for none. */
  hookData?: ((c: Context) => object | undefined) | null;
  idempotencyScope?: (c: Context) => unknown;
  /** Replaces the x-org-id module's hooks (the back office's actions are added when it has none). */
  hooks?: Hooks;
}

/** Creates the back office's tables and its orgs (A, B and the default) on `db` (no idempotency store: the first keyed request makes it). */
export async function createBackOffice(db: Executor): Promise<ServiceDescriptor> {
  const { ddl, service } = await compileFile(BACK_OFFICE);
  await db.script(ddl);
  await db.query({
    text: "INSERT INTO orgs (id, name) VALUES ($1::uuid, 'A'), ($2::uuid, 'B'), ($3::uuid, 'default')",
    values: [ORG_A, ORG_B, ORG_DEFAULT],
  });
  return service;
}

/** Serves the back office on `db` (made by {@link createBackOffice}) as `resc dev --hooks test/fixtures-hooks/tenant.ts` does. */
export function serveBackOffice(db: Executor, service: ServiceDescriptor, options: BackOfficeOptions = {}): BackOffice {
  const hooks = {
    ...(options.hooks ?? tenantHooks(service)),
    actions: options.hooks?.actions ?? backOfficeActions,
  };
  const hookData = options.hookData === undefined ? tenantData : (options.hookData ?? undefined);
  const { app, mounted } = createDevApp(service, {
    db,
    hooks,
    ...(hookData ? { hookData } : {}),
    ...(options.idempotencyScope ? { idempotencyScope: options.idempotencyScope } : {}),
    openapi: false,
  });
  if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
  return {
    app,
    service,
    post: (path, body, headers = {}) => within(sendTo(app, "POST", path, body, headers), `POST ${path}`),
    rows: async (text, values = []) => (await db.query({ text, values })).rows,
  };
}
