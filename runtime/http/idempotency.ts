/**
 * Safe retries with `Idempotency-Key` (the IETF httpapi draft
 * "The Idempotency-Key HTTP Header Field"; docs/decisions/1335-idempotency-keys.md).
 *
 * A POST carrying the header runs in one transaction that also holds an
 * advisory lock on the key and, when the write succeeds, stores its response
 * in the table {@link IDEMPOTENCY_TABLE}, so the stored outcome commits
 * exactly when the write does. A retry with the same key and the same
 * request gets the stored status, headers and body and writes nothing; with
 * a different request, 422; while the first still runs, 409. The table lives
 * in the database, so every node of a service shares it. Keys are scoped by
 * the caller as the service knows it: the identity `idempotencyScope` or
 * `hookData` gives for the request, never the credential's text, so one
 * caller's key never replays another's response and a fresh token of the same
 * caller replays its own (docs/decisions/1360-idempotency-scope.md).
 */
import { principalOf } from "../auth/principal.js";
import { createHash } from "node:crypto";
import type { Context } from "hono";
import type { Executor, SqlStatement } from "../exec/executor.js";
import type { CommitEvent } from "../hooks.js";
import { problem } from "../problem.js";
import type { ResourceContext } from "./context.js";
import {
  DEFAULT_IDEMPOTENCY_RETENTION_SECONDS,
  IDEMPOTENCY_TABLE,
  IDEMPOTENCY_TABLE_DDL,
} from "../idempotency-store.js";
import { afterCommit } from "./write.js";

/** The longest key accepted, in characters (the draft recommends a UUID). */
const MAX_KEY_LENGTH = 255;

/** Request headers that change what a POST does, so they are part of its fingerprint. */
const MEANINGFUL_HEADERS = ["prefer", "if-match"];

/** Response headers stored with a response and sent again on a replay. */
const REPLAYED_HEADERS = ["content-type", "etag", "location", "preference-applied"];

/** What one request's key is checked and stored under. */
interface KeyedRequest {
  key: string;
  /** SHA-256 of the caller's identity ({@link idempotencyScopeOf}): keys of different callers never meet. */
  scope: string;
  /** SHA-256 of method, path with query, the headers that change a write's meaning, and body: what "the same request" means. */
  fingerprint: string;
  /** The advisory lock of (scope, key), as a bigint in text. */
  lock: string;
}

/**
 * The `Idempotency-Key` of a request: an RFC 8941 string (`"…"`, the
 * draft's form) or, leniently, a bare token; undefined when absent.
 * @throws ProblemError 400 `invalid-header` at `header.idempotency-key` when empty or longer than 255 characters
 */
export function idempotencyKeyOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  const quoted = /^"((?:[^"\\]|\\.)*)"$/.exec(trimmed);
  const key = quoted ? quoted[1]!.replace(/\\(.)/g, "$1") : trimmed;
  if (key === "" || key.length > MAX_KEY_LENGTH)
    throw problem("invalid-header", "The Idempotency-Key header must hold 1 to 255 characters.", [
      { location: "header.idempotency-key", detail: key === "" ? "empty key" : "key longer than 255 characters" },
    ]);
  return key;
}

function sha256(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Where a request's identity came from, for the message of one that cannot be serialized. */
type IdentitySource = "idempotencyScope" | "hookData" | "principal";

/**
 * Appends the canonical text of `v` to `out`: JSON with object keys sorted
 * and members whose value is undefined left out, a bigint as its digits
 * (the integer it is) and a Date as its ISO text (the instant it is).
 * @returns the path of the first value that identifies nothing (a function,
 *   a symbol, a non-finite number, an instance of a class other than Date,
 *   a cycle), or undefined when all of `v` was written
 */
function canonical(v: unknown, path: string, seen: Set<object>, out: string[]): string | undefined {
  if (v === null || typeof v === "string" || typeof v === "boolean") {
    out.push(JSON.stringify(v));
    return undefined;
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return path;
    out.push(JSON.stringify(v));
    return undefined;
  }
  if (typeof v === "bigint") {
    out.push(v.toString());
    return undefined;
  }
  if (v instanceof Date) {
    if (Number.isNaN(v.getTime())) return path;
    out.push(JSON.stringify(v.toISOString()));
    return undefined;
  }
  if (typeof v !== "object" || seen.has(v)) return path;
  seen.add(v);
  if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      const bad = canonical(v[i] === undefined ? null : v[i], `${path}[${i}]`, seen, out);
      if (bad !== undefined) return bad;
    }
    out.push("]");
  } else {
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return path;
    const record = v as Record<string, unknown>;
    const names = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    out.push("{");
    for (let i = 0; i < names.length; i++) {
      if (i > 0) out.push(",");
      out.push(JSON.stringify(names[i]), ":");
      const bad = canonical(record[names[i]!], `${path}.${names[i]}`, seen, out);
      if (bad !== undefined) return bad;
    }
    out.push("}");
  }
  seen.delete(v);
  return undefined;
}

/** Prefix of the hashed text, so a later rule for scopes never meets this one's. */
const SCOPE_VERSION = "resc-idempotency-scope/1\n";

/**
 * The scope an `Idempotency-Key` is stored under for a caller whose identity,
 * as the service establishes it, is `identity` (what `idempotencyScope` or
 * else `hookData` returns for the request; docs/decisions/1360-idempotency-scope.md):
 * the SHA-256, in hex, of its canonical JSON (keys sorted, undefined members
 * left out, a bigint as its digits, a Date as its ISO text). Equal
 * identities give one scope whatever their key order or the request's
 * credential; undefined and null are the one anonymous scope.
 * @throws ProblemError 500 `hook-misconfigured` naming `source` and the path
 *   of a value that identifies nothing (a function, a class instance other
 *   than Date, a cycle, a non-finite number): the application must give an
 *   `idempotencyScope` that returns plain data
 */
export function idempotencyScopeOf(identity: unknown, source: IdentitySource = "idempotencyScope"): string {
  const out: string[] = [];
  const bad = canonical(identity === undefined ? null : identity, "", new Set(), out);
  if (bad !== undefined)
    throw problem(
      "hook-misconfigured",
      `The caller's identity from ${source} cannot scope an Idempotency-Key: the value at ` +
        `${bad === "" ? "its top" : bad.replace(/^\./, "")} is not plain data (strings, numbers, booleans, ` +
        "null, arrays, plain objects, bigints, Dates); give an idempotencyScope that returns the caller's identity.",
    );
  return sha256(SCOPE_VERSION + out.join("")).toString("hex");
}

/**
 * The caller's identity as the service establishes it: `idempotencyScope` when given, else the
 * principal (docs/decisions/1367-access-rules.md), else the hooks' data. A principal is its subject,
 * roles and claims, everything the declared rules judge a request by: the same subject with a token
 * for another tenant or a lesser role is another caller, which a stored answer (another tenant's row,
 * a column its role hides, a write its role may not make) must never be replayed to.
 */
function scopeOfRequest(rc: ResourceContext, c: Context, scope: IdempotencyOptions["scope"]): string {
  if (scope !== undefined) return idempotencyScopeOf(scope(c), "idempotencyScope");
  const principal = principalOf(c);
  if (principal !== undefined)
    return idempotencyScopeOf(
      principal.anonymous
        ? null
        : { subject: principal.subject, roles: [...new Set(principal.roles)].sort(), claims: principal.claims },
      "principal",
    );
  return idempotencyScopeOf(rc.hookData?.(c), "hookData");
}

async function keyedRequest(c: Context, key: string, scope: string): Promise<KeyedRequest> {
  const url = new URL(c.req.url);
  const body = await c.req.text();
  // Prefer (an upsert's resolution) and If-Match (an action's precondition) change what the same body does.
  const meaning = MEANINGFUL_HEADERS.map((h) => `${h}: ${c.req.header(h) ?? ""}`).join("\n");
  const fingerprint = sha256(`${c.req.method}\n${url.pathname}${url.search}\n${meaning}\n${body}`).toString("hex");
  const lock = sha256(`${scope}\n${key}`).readBigInt64BE(0).toString();
  return { key, scope, fingerprint, lock };
}

/** An executor that runs everything in the transaction `tx`: a handler's own transaction joins it. */
function joined(tx: Executor): Executor {
  const self: Executor = {
    query: (stmt: SqlStatement) => tx.query(stmt),
    transaction: (fn) => fn(self),
    script: (sql: string) => tx.script(sql),
    close: async () => {},
  };
  return self;
}

const UNDEFINED_TABLE = "42P01";

/** The store's table does not exist: raised before the handler ran, so the request may simply be run again once it does. */
class StoreMissing extends Error {}

/** What the transaction decided: a fresh answer (stored when it succeeded) or a replay of a stored one. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
  replayed: boolean;
}

/**
 * The caller's identity for scoping `Idempotency-Key`s
 * (`MountOptions.idempotencyScope`; docs/decisions/1360-idempotency-scope.md):
 * plain data naming who the service takes the request's caller to be, e.g.
 * `{ org, user }` from a verified token, the same for every credential of
 * that caller; undefined when the request has no identity (the one anonymous
 * scope).
 */
export type IdempotencyScope = (c: Context) => unknown;

/** Options of {@link idempotent}. */
export interface IdempotencyOptions {
  /** How long a stored response answers retries, in seconds; default {@link DEFAULT_IDEMPOTENCY_RETENTION_SECONDS}. */
  retentionSeconds?: number;
  /** The caller's identity; default: the request's hook data (`ResourceContext.hookData`), none without it. */
  scope?: IdempotencyScope;
}

/**
 * Wraps a POST handler so that a request with `Idempotency-Key` is safe to
 * retry (docs/decisions/1335-idempotency-keys.md). Without the header the
 * handler runs as it is.
 *
 * The key is the caller's: it is looked up under the scope of the caller's
 * identity, `options.scope(c)` or else the request's hook data
 * ({@link idempotencyScopeOf}; docs/decisions/1360-idempotency-scope.md).
 * Then, in one transaction: `pg_try_advisory_xact_lock` on scope and key (not
 * granted: 409 `request-in-flight`, `Retry-After: 1`); a live stored
 * response for the key is replayed when the request's fingerprint matches
 * (with `Idempotent-Replayed: true`) and is a 422 `idempotency-key-reused`
 * otherwise; else the handler runs inside the transaction and, when it
 * answers 2xx, its response is stored before the commit. A refusal writes
 * nothing and stores nothing, so a retry is answered afresh. AfterCommit
 * hooks run after the commit. A missing store is created once (see
 * `storeCreated`) and the request run again.
 * @throws ProblemError 500 `hook-misconfigured` when the identity is not plain data
 */
export function idempotent(
  handler: (rc: ResourceContext, c: Context) => Promise<Response>,
  options: IdempotencyOptions = {},
): (rc: ResourceContext, c: Context) => Promise<Response> {
  const retention = options.retentionSeconds ?? DEFAULT_IDEMPOTENCY_RETENTION_SECONDS;
  return async (rc, c) => {
    const key = idempotencyKeyOf(c.req.header("idempotency-key"));
    if (key === undefined) return handler(rc, c);
    const req = await keyedRequest(c, key, scopeOfRequest(rc, c, options.scope));
    const deferred: CommitEvent[] = [];
    const run = (): Promise<Answer> =>
      rc.db.transaction((tx) => answerOnce(tx, req, retention, () => handler({ ...rc, db: joined(tx), deferred }, c)));
    let answer: Answer;
    try {
      answer = await run();
    } catch (e) {
      if (!(e instanceof StoreMissing)) throw e;
      if (!(await storeCreated(rc.db)))
        throw problem(
          "internal",
          `The idempotency store (table ${IDEMPOTENCY_TABLE}) is missing and this service may not create it: run resc migrate deploy.`,
        );
      answer = await run();
    }
    for (const event of deferred) await afterCommit(rc, c, event);
    const headers: Record<string, string> = { ...answer.headers };
    if (answer.replayed) headers["idempotent-replayed"] = "true";
    return new Response(answer.status === 204 ? null : answer.body, { status: answer.status, headers });
  };
}

/**
 * An advisory lock key of resc's own (the text's first eight bytes as a
 * bigint), taken while the store is created, so that creators on every node
 * queue instead of racing in the catalog.
 */
const CREATE_LOCK = sha256(`create ${IDEMPOTENCY_TABLE}`).readBigInt64BE(0).toString();

/** The creation in progress on each executor: the requests that found the store missing together wait for one. */
const creating = new WeakMap<Executor, Promise<boolean>>();

/**
 * Creates the store when the service's role may. Concurrent requests of one
 * process share one attempt; processes (nodes) queue on an advisory lock held
 * to the commit, so `CREATE TABLE IF NOT EXISTS` of the second finds the
 * first's table instead of colliding with it in the catalog (which
 * PostgreSQL reports as a unique violation, not as "exists").
 * @returns true when the table exists now; false when it does not and this
 *   role may not create it (the request is then answered 500, naming the
 *   command that creates it)
 */
function storeCreated(db: Executor): Promise<boolean> {
  let attempt = creating.get(db);
  if (attempt === undefined) {
    attempt = createStore(db).finally(() => creating.delete(db));
    creating.set(db, attempt);
  }
  return attempt;
}

async function createStore(db: Executor): Promise<boolean> {
  try {
    await db.transaction(async (tx) => {
      await tx.query({ text: "SELECT pg_advisory_xact_lock($1::bigint)", values: [CREATE_LOCK] });
      await tx.query({ text: IDEMPOTENCY_TABLE_DDL, values: [] });
    });
    return true;
  } catch {
    // Refused (no CREATE privilege), or lost a race this lock does not cover (another creator): it may exist anyway.
    const found = await db
      .query({ text: "SELECT to_regclass($1::text)::text AS t", values: [IDEMPOTENCY_TABLE] })
      .catch(() => undefined);
    return found?.rows[0]?.t != null;
  }
}

async function answerOnce(
  tx: Executor,
  req: KeyedRequest,
  retentionSeconds: number,
  handle: () => Promise<Response>,
): Promise<Answer> {
  const locked = await tx.query({
    text: "SELECT pg_try_advisory_xact_lock($1::bigint)::text AS ok",
    values: [req.lock],
  });
  if (locked.rows[0]?.ok !== "true") {
    const p = problem("request-in-flight", "A request with this Idempotency-Key is still being processed.", [
      { location: "header.idempotency-key", detail: "in flight; retry after it finishes" },
    ]);
    p.retryAfterSeconds = 1;
    throw p;
  }
  let stored;
  try {
    stored = await tx.query({
      text:
        `SELECT fingerprint, status::text AS status, headers::text AS headers, body FROM ${IDEMPOTENCY_TABLE} ` +
        "WHERE scope = $1 AND key = $2 AND expires_at > now()",
      values: [req.scope, req.key],
    });
  } catch (e) {
    if ((e as { code?: unknown } | null)?.code === UNDEFINED_TABLE) throw new StoreMissing();
    throw e;
  }
  const row = stored.rows[0];
  if (row !== undefined) {
    if (row.fingerprint !== req.fingerprint)
      throw problem(
        "idempotency-key-reused",
        "This Idempotency-Key was used for a different request; use a new key for a new request.",
        [{ location: "header.idempotency-key", detail: "already used with another method, path or body" }],
      );
    return {
      status: Number(row.status),
      headers: JSON.parse(String(row.headers)) as Record<string, string>,
      body: String(row.body),
      replayed: true,
    };
  }
  const res = await handle();
  const body = await res.text();
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const v = res.headers.get(name);
    if (v !== null) headers[name] = v;
  }
  if (res.status >= 200 && res.status < 300) {
    await tx.query({
      text:
        `INSERT INTO ${IDEMPOTENCY_TABLE} (scope, key, fingerprint, status, headers, body, expires_at) ` +
        "VALUES ($1, $2, $3, $4::integer, $5::jsonb, $6, now() + make_interval(secs => $7::double precision)) " +
        "ON CONFLICT (scope, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, status = EXCLUDED.status, " +
        "headers = EXCLUDED.headers, body = EXCLUDED.body, created_at = now(), expires_at = EXCLUDED.expires_at",
      values: [
        req.scope,
        req.key,
        req.fingerprint,
        String(res.status),
        JSON.stringify(headers),
        body,
        String(retentionSeconds),
      ],
    });
    // Expired keys are cleared as new ones arrive, a bounded batch at a time, so the store stays the size of one retention window.
    await tx.query({
      text:
        `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${IDEMPOTENCY_TABLE} ` +
        "WHERE expires_at < now() LIMIT 100))",
      values: [],
    });
  }
  return { status: res.status, headers, body, replayed: false };
}
