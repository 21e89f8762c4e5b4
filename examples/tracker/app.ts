/**
 * The task tracker as a Hono app: the generated routes of `spec.resource`
 * under the access rules it declares (bearer tokens verified by resc, every
 * table confined to the caller's org; docs/decisions/1367-access-rules.md),
 * the hand-written `POST /auth/login` issuing those tokens, the audit hooks,
 * and the API description (`/openapi.json`, `/docs`). `main.ts` serves it;
 * tests call {@link createTrackerApp} with their own database.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { mountDocs, type Executor, type Hooks, type PgExecutor } from "resc/runtime";
import { answerProblems, loggedTarget, withOperations } from "resc/ops";
import { mount, service } from "./generated/tracker/index.js";
import { openapi } from "./generated/tracker/openapi.js";
import { auditHooks } from "./audit.js";
import { loginHandler } from "./auth/login.js";
import { DEFAULT_TOKEN_TTL_SECONDS, SECRET_ENV } from "./auth/token.js";
import { trackerDocument } from "./openapi.js";
import { REALM, sendProblem } from "./problems.js";
import { trackerActions } from "./actions.js";

/** Options of {@link createTrackerApp}. */
export interface TrackerAppOptions {
  /** The database holding the tracker's tables (`examples/tracker/schema.sql`). */
  db: Executor;
  /** HS256 secret tokens are signed and checked with; at least 32 bytes (RFC 7518 §3.2). */
  jwtSecret: string;
  /** Lifetime of issued tokens in seconds; default one hour. */
  tokenTtlSeconds?: number;
  /** Receives one line per request (`GET /tasks?status=eq.todo 200 4ms`) and one per audited write; default none. */
  log?: (line: string) => void;
  /**
   * Receives faults answered with a 5xx; default: the runtime's one line
   * per fault on stderr for the generated routes, `console.error` for
   * anything else.
   */
  logError?: (e: unknown) => void;
  /** Aborted when the server stops: the task feed's streams end with a `reconnect` event instead of holding it open. */
  signal?: AbortSignal;
}

/** Largest login body read, in bytes: an email and a password, with room to spare. */
const LOGIN_BODY_BYTES = 16 * 1024;

/**
 * Builds the tracker app.
 * @throws Error when the secret is shorter than 32 bytes, or when the
 *   generated routes or the docs refuse to mount (a registration error: an
 *   action without its implementation; a docs path the schema uses); the
 *   message lists every error
 */
export function createTrackerApp(options: TrackerAppOptions): Hono {
  if (Buffer.byteLength(options.jwtSecret, "utf8") < 32) {
    throw new Error("the JWT secret must be at least 32 bytes long (HS256 keys are 256 bits)");
  }
  const log = options.log;
  const logError = options.logError ?? ((e: unknown) => console.error(e));
  const logFault = options.logError ? (e: unknown) => logError(e) : undefined;
  const ttlSeconds = options.tokenTtlSeconds ?? DEFAULT_TOKEN_TTL_SECONDS;
  const app = new Hono();
  // Request ids, /live, /ready, /metrics and the fault log, as resc serve has them (docs/deploy.md);
  // the tracker keeps its own one-line request log for the terminal.
  const ops = withOperations(app, {
    db: options.db,
    ...("pool" in options.db ? { pool: (options.db as PgExecutor).pool } : {}),
    logRequests: false,
  });

  if (log) {
    app.use(async (c, next) => {
      const start = performance.now();
      await next();
      log(`${c.req.method} ${loggedTarget(c.req.url)} ${c.res.status} ${Math.round(performance.now() - start)}ms`);
    });
  }
  answerProblems(app, (e) => logError(e));

  app.post(
    "/auth/login",
    bodyLimit({
      maxSize: LOGIN_BODY_BYTES,
      onError: (c) =>
        sendProblem(c, {
          type: "/problems/body-too-large",
          title: "Content Too Large",
          status: 413,
          detail: "The request body is larger than this service accepts.",
          errors: [{ location: "body", detail: "too large" }],
        }),
    }),
    loginHandler({ db: options.db, secret: options.jwtSecret, ttlSeconds }),
  );

  // Tenancy, authorship and soft delete are spec.resource's access blocks; the hooks are the audit and the actions.
  const hooks: Hooks = {
    afterCommit: auditHooks({ db: options.db, service, log: log ?? (() => {}) }),
    actions: trackerActions,
  };
  const mounted = mount(app, {
    db: options.db,
    hooks,
    // resc verifies the bearer token of every resource route with the secret login signs with; why a token
    // was refused is logged, never served.
    auth: {
      env: { [SECRET_ENV]: options.jwtSecret },
      realm: REALM,
      ...(log ? { log: (refusal) => log(`auth: token refused (${refusal.message})`) } : {}),
    },
    logError: logFault ?? ops.logError,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!mounted.ok) {
    throw new Error(`the tracker's routes did not mount:\n  - ${mounted.errors.map((e) => e.message).join("\n  - ")}`);
  }
  const docs = mountDocs(app, trackerDocument(openapi));
  if (!docs.ok) {
    throw new Error(`the API description did not mount:\n  - ${docs.errors.map((e) => e.message).join("\n  - ")}`);
  }
  return app;
}
