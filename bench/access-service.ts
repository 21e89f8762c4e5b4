/**
 * The service `npm run bench:access` measures (bench/access.ts): one tenant
 * table, `tickets`, served three ways that answer the same principal with
 * the same rows (docs/decisions/1367-access-rules.md):
 *
 * - `declared`: an `auth` block and the access block `member { ops = [reads]
 *   rows org_id = claim.org }`, attached to the compiled descriptor by hand
 *   (as test/access/rules.test.ts does; the language's syntax is not needed
 *   to measure the runtime);
 * - `hook`: no `auth` block; the same rule as a hand-written BeforeQuery hook,
 *   `cmp("org_id", "eq", org)` with the org from the hooks' `data`;
 * - `none`: no rule and no hook; its page request names the org in its query
 *   (`org_id=eq.…`), so it reads the same rows with the same plan.
 *
 * In every variant the principal comes from {@link standInAuthentication},
 * which sets one fixed principal without verifying anything (the cost of a
 * token is measured apart, bench/access-jwt.ts), and prepares no header, as
 * the built-in bearer verification it stands for.
 */
import { Hono, type Context, type MiddlewareHandler } from "hono";
import type { Schema } from "../language/ir.js";
import type { PgExecutor } from "../runtime/exec/pg.js";
import type { Executor } from "../runtime/exec/executor.js";
import type {
  AccessDescriptor,
  AuthDescriptor,
  JwtDescriptor,
  Rule,
  ServiceDescriptor,
  TableDescriptor,
} from "../runtime/descriptor.js";
import type { Hooks } from "../runtime/hooks.js";
import { cmp, or } from "../runtime/predicate.js";
import { principalOf, setPrincipal, type Principal } from "../runtime/auth/principal.js";
import { preparesNoHeaders } from "../runtime/http/plain-answer.js";
import { requestHeader } from "../runtime/http/request-header.js";
import { mountService, type MountAuthOptions, type MountResult } from "../runtime/http/mount.js";
import { createServeApp } from "../cli/serve/app.js";

/** The schema: tickets of many orgs, each org's rows spread over the whole table. */
export const ACCESS_SCHEMA = `
/// Tickets of many tenants: the table of npm run bench:access.
api {
  title   = "Tickets"
  version = "1.0.0"
}

enum ticket_status { open pending closed }

/// A ticket of one org.
table tickets {
  id          bigint        @primary_key @default(identity) @sortable
  org_id      uuid          @filterable
  title       text          @filterable @sortable
  description text?
  status      ticket_status @filterable @sortable
  priority    smallint      @filterable @sortable
  estimate    numeric(6,2)? @filterable
  labels      text[]
  created_at  timestamptz   @default(now()) @sortable
  updated_at  timestamptz   @default(now()) @sortable

  @@index([org_id, created_at])
  @@index([created_at])

  resource "/tickets" {
    ops          = [reads]
    default_sort = [-created_at]
  }
}
`;

/** The file name diagnostics of {@link ACCESS_SCHEMA} name. */
export const ACCESS_SCHEMA_FILE = "bench/access-service.ts";

/** Orgs in the table, and tickets of each. */
export const ORGS = 20;
export const TICKETS_PER_ORG = 2000;

/** The uuid of org `n` (1-based). */
export function orgId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;
}

/** The org every measured request acts for. */
export const BENCH_ORG = orgId(1);

/**
 * Fills the table after its DDL: `orgs` × `perOrg` tickets (default
 * {@link ORGS} × {@link TICKETS_PER_ORG}), the orgs interleaved row by row
 * (so one org's rows are on every page of the heap, as a busy multi-tenant
 * table's are), a third of them open, priorities 1-5, then ANALYZE.
 */
export function seedSql(orgs = ORGS, perOrg = TICKETS_PER_ORG): string {
  return `
INSERT INTO tickets (org_id, title, description, status, priority, estimate, labels, created_at, updated_at)
SELECT ('00000000-0000-4000-8000-' || lpad(to_hex(1 + (g - 1) % ${orgs}), 12, '0'))::uuid,
       'Ticket ' || g,
       CASE WHEN g % 3 = 0 THEN NULL ELSE 'Steps to reproduce issue ' || g || ', seen on the staging server' END,
       (ARRAY['open', 'pending', 'closed']::ticket_status[])[1 + g % 3],
       1 + ((g / ${orgs}) * 7) % 5,
       CASE WHEN g % 4 = 0 THEN NULL ELSE ((g * 13) % 4000) / 100.0 END,
       ARRAY['area-' || (g % 7), 'kind-' || (g % 5)],
       timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => g),
       timestamptz '2026-01-01 00:00:00+00' + make_interval(mins => g, secs => g % 3600)
FROM generate_series(1, ${orgs * perOrg}) AS g;
ANALYZE tickets;
`;
}

/** The query of the filtered page: open tickets of priority 3 or more, newest first (one page of 25). */
export const PAGE_QUERY = "status=eq.open&priority=gte.3&sort=-created_at";

/** The three ways the table is served. */
export type AccessVariant = "declared" | "hook" | "none";

/** Every {@link AccessVariant}, in report order. */
export const ACCESS_VARIANTS: readonly AccessVariant[] = ["declared", "hook", "none"];

/** The report label of each variant (also its server's label in bench/servers.ts). */
export const VARIANT_LABELS = {
  declared: "declared rule",
  hook: "hand-written hook",
  none: "no rule",
} as const satisfies Record<AccessVariant, string>;

/** The two measured requests of a variant: the filtered page and the read of `readId`, a ticket of {@link BENCH_ORG}. */
export function variantPaths(variant: AccessVariant, readId: string): { page: string; read: string } {
  const page = variant === "none" ? `/tickets?org_id=eq.${BENCH_ORG}&${PAGE_QUERY}` : `/tickets?${PAGE_QUERY}`;
  return { page, read: `/tickets/${readId}` };
}

/** The declared tenant rule: `org_id = claim.org`. */
export const TENANT_RULE: Rule = { kind: "cmp", column: "org_id", op: "eq", value: { claim: "org" } };

/** `access member { ops = [reads] rows org_id = claim.org }`. */
export const TENANT_ACCESS: AccessDescriptor[] = [
  { roles: ["member"], ops: ["list", "read"], rows: [{ rule: TENANT_RULE }], stamps: [], hide: [] },
];

/** The `auth` block: one role, its claims `sub` and `org` (a uuid); `jwt` as given (none: only a middleware sets principals). */
export function benchAuth(jwt?: JwtDescriptor): AuthDescriptor {
  return {
    ...(jwt ? { jwt } : {}),
    roles: ["member"],
    roleClaim: ["role"],
    claims: [
      { name: "sub", path: ["sub"], kind: "text", array: false, sqlType: "text", nullable: false },
      { name: "org", path: ["org"], kind: "uuid", array: false, sqlType: "uuid", nullable: false },
    ],
  };
}

/** `service` with the `auth` block of {@link benchAuth} and the tenant rule on `tickets`. */
export function declaredService(service: ServiceDescriptor, jwt?: JwtDescriptor): ServiceDescriptor {
  return {
    ...service,
    auth: benchAuth(jwt),
    tables: service.tables.map((t): TableDescriptor => (t.name === "tickets" ? { ...t, access: TENANT_ACCESS } : t)),
  };
}

/** The principal of every measured request: a member of {@link BENCH_ORG}. */
export const BENCH_PRINCIPAL: Principal = Object.freeze({
  subject: "bench-user",
  roles: Object.freeze(["member"]),
  claims: Object.freeze({ sub: "bench-user", org: BENCH_ORG }),
});

/**
 * Sets {@link BENCH_PRINCIPAL} on a request that carries no `Authorization`
 * header (one that does is left to the built-in verification). Declared to
 * prepare no header, which it never does, as the built-in bearer middleware
 * it stands for is (docs/decisions/1352-answers-without-headers-objects.md).
 */
export const standInAuthentication: MiddlewareHandler = preparesNoHeaders(async (c, next) => {
  if (requestHeader(c, "authorization") === undefined) setPrincipal(c, BENCH_PRINCIPAL);
  await next();
});

/** The hooks' data of the hook variant: the caller's org, as an application's own middleware would hand it over. */
export function tenantHookData(c: Context): { org: unknown } {
  return { org: principalOf(c)?.claims.org };
}

/** The hook variant's rule: `org_id = data.org`, nothing without an org (an empty OR is FALSE). */
export const TENANT_HOOKS: Hooks = {
  beforeQuery: {
    tickets: (ctx) => (typeof ctx.data?.org === "string" ? cmp("org_id", "eq", ctx.data.org) : or()),
  },
};

/** What {@link accessApp} needs. */
export interface AccessAppOptions {
  schema: Schema;
  /** The compiled descriptor, without `auth` or `access`. */
  service: ServiceDescriptor;
  db: PgExecutor;
  /** pino level of the request log; default `warn`, as bench/resc-server.ts. */
  logLevel?: string;
}

/**
 * The app `resc serve` runs (cli/serve/app.ts) serving the table the way
 * `variant` says, {@link standInAuthentication} as its `--middleware`.
 */
export function accessApp(variant: AccessVariant, o: AccessAppOptions): { app: Hono; mounted: MountResult } {
  const common = { schema: o.schema, db: o.db, middleware: standInAuthentication, logLevel: o.logLevel ?? "warn" };
  switch (variant) {
    case "declared":
      return createServeApp({ ...common, service: declaredService(o.service) });
    case "hook":
      return createServeApp({ ...common, service: o.service, hooks: TENANT_HOOKS, hookData: tenantHookData });
    case "none":
      return createServeApp({ ...common, service: o.service });
  }
}

/**
 * The bare API app of the declared variant with the built-in bearer
 * verification of `jwt` (bench/access-jwt.ts), {@link standInAuthentication}
 * in front for requests without a token.
 */
export function bearerApp(
  service: ServiceDescriptor,
  db: Executor,
  jwt: JwtDescriptor,
  auth: MountAuthOptions = {},
): { app: Hono; mounted: MountResult } {
  const app = new Hono();
  app.use(standInAuthentication);
  return { app, mounted: mountService(app, declaredService(service, jwt), { db, auth }) };
}
