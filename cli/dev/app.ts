/**
 * The default server of `resc dev`: a Hono app with a one-line request log,
 * problem documents for unknown paths and unexpected faults, and the
 * generated routes of every resource.
 */
import { Hono, type Context } from "hono";
import type { ServiceDescriptor } from "../../runtime/descriptor.js";
import type { Executor } from "../../runtime/exec/executor.js";
import type { Hooks } from "../../runtime/hooks.js";
import type { WebhookSubscription } from "../../runtime/events/webhooks.js";
import { mountService, type MountResult } from "../../runtime/http/mount.js";
import { mountDocs, type DocsResult, type OpenApiData } from "../../runtime/http/docs.js";
import { openApiDocument } from "../../compiler/backends/openapi/index.js";
import { answerProblems } from "../../runtime/ops/fallbacks.js";
import { loggedTarget } from "../../runtime/ops/redact.js";
import { principalOf } from "../../runtime/auth/principal.js";
import type { MountAuthOptions } from "../../runtime/auth/mounting.js";

/** Options of {@link createDevApp}. */
export interface DevAppOptions {
  db: Executor;
  hooks?: Hooks;
  /** Derives each request's hook data (`MountOptions.hookData`). */
  hookData?: (c: Context) => object | undefined;
  /** `MountOptions.idempotencyScope` (docs/decisions/1360-idempotency-scope.md). */
  idempotencyScope?: (c: Context) => unknown;
  /**
   * Receives one line per request (`GET /films?… 200 3ms`), credential-looking query values replaced by
   * `REDACTED` as `resc serve` logs them (runtime/ops/redact.ts); default: none.
   */
  log?: (line: string) => void;
  /**
   * The OpenAPI document served at `/openapi.json` with the page at `/docs`
   * (runtime/http/docs.ts); default: computed from `service`; `false`: none.
   */
  openapi?: OpenApiData | false;
  /** `MountOptions.signal`: aborted when `resc dev` stops, ending change feed streams (docs/decisions/1337-change-feed.md). */
  signal?: AbortSignal;
  /** Webhook subscriptions from the hooks module (docs/decisions/1338-webhooks.md). */
  webhooks?: WebhookSubscription[];
  /**
   * `MountOptions.auth` (docs/decisions/1367-access-rules.md), or what gives it for the service being
   * mounted (`--watch` mounts each new schema's); default: the schema's settings, `process.env`.
   */
  auth?: MountAuthOptions | false | ((service: ServiceDescriptor) => MountAuthOptions | false);
}

/**
 * `auth` with its refusals written to `log` as `resc serve` logs them: the reason and what failed, never the
 * token (docs/decisions/1367-access-rules.md); `false` and an absent `log` are left as they are.
 */
function withRefusalLog(
  auth: MountAuthOptions | false | undefined,
  log: ((line: string) => void) | undefined,
): MountAuthOptions | false | undefined {
  if (auth === false || !log) return auth;
  const own = auth?.log;
  return {
    ...auth,
    log: (refusal, c) => {
      const reason = "reason" in refusal ? refusal.reason : "keys-unavailable";
      log(`bearer token refused (reason=${reason}): ${refusal.message}`);
      own?.(refusal, c);
    },
  };
}

/**
 * Builds the app; `mounted` carries registration errors, if any, and `docs`
 * the resource paths the documentation routes would collide with (the docs
 * are then not served).
 * @throws AuthConfigError when the schema's `auth` settings cannot verify tokens (from `mountService`)
 */
export function createDevApp(
  service: ServiceDescriptor,
  options: DevAppOptions,
): { app: Hono; mounted: MountResult; docs: DocsResult } {
  const app = new Hono();
  const log = options.log;
  if (log) {
    app.use(async (c, next) => {
      const start = performance.now();
      await next();
      // The same redaction as `resc serve`'s request line: a token put in the URL never reaches the log.
      // The caller, when a principal with a subject was set, as `resc serve` names it (`sub`).
      const subject = principalOf(c)?.subject;
      log(
        `${c.req.method} ${loggedTarget(c.req.url)} ${c.res.status} ${Math.round(performance.now() - start)}ms` +
          (subject ? ` sub=${JSON.stringify(subject)}` : ""),
      );
    });
  }
  answerProblems(app, (e) => console.error(e));
  const mounted = mountService(app, service, {
    db: options.db,
    hooks: options.hooks,
    hookData: options.hookData,
    ...(options.idempotencyScope ? { idempotencyScope: options.idempotencyScope } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.webhooks && options.webhooks.length > 0 ? { webhooks: { subscriptions: options.webhooks } } : {}),
    ...(options.auth !== undefined || log
      ? { auth: withRefusalLog(typeof options.auth === "function" ? options.auth(service) : options.auth, log) }
      : {}),
  });
  const document = options.openapi ?? openApiDocument(service);
  const docs: DocsResult = document === false ? { ok: true } : mountDocs(app, document);
  return { app, mounted, docs };
}
