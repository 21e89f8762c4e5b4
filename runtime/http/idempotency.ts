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
 * the caller's credential (the `Authorization` header): one caller's key can
 * never replay another's response.
 */
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
  /** SHA-256 of the caller's credential: keys of different callers never meet. */
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

async function keyedRequest(c: Context, key: string): Promise<KeyedRequest> {
  const url = new URL(c.req.url);
  const scope = sha256(c.req.header("authorization") ?? "").toString("hex");
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

/** Options of {@link idempotent}. */
export interface IdempotencyOptions {
  /** How long a stored response answers retries, in seconds; default {@link DEFAULT_IDEMPOTENCY_RETENTION_SECONDS}. */
  retentionSeconds?: number;
}

/**
 * Wraps a POST handler so that a request with `Idempotency-Key` is safe to
 * retry (docs/decisions/1335-idempotency-keys.md). Without the header the
 * handler runs as it is.
 *
 * With it, in one transaction: `pg_try_advisory_xact_lock` on the key (not
 * granted: 409 `request-in-flight`, `Retry-After: 1`); a live stored
 * response for the key is replayed when the request's fingerprint matches
 * (with `Idempotent-Replayed: true`) and is a 422 `idempotency-key-reused`
 * otherwise; else the handler runs inside the transaction and, when it
 * answers 2xx, its response is stored before the commit. A refusal writes
 * nothing and stores nothing, so a retry is answered afresh. AfterCommit
 * hooks run after the commit.
 */
export function idempotent(
  handler: (rc: ResourceContext, c: Context) => Promise<Response>,
  options: IdempotencyOptions = {},
): (rc: ResourceContext, c: Context) => Promise<Response> {
  const retention = options.retentionSeconds ?? DEFAULT_IDEMPOTENCY_RETENTION_SECONDS;
  return async (rc, c) => {
    const key = idempotencyKeyOf(c.req.header("idempotency-key"));
    if (key === undefined) return handler(rc, c);
    const req = await keyedRequest(c, key);
    const deferred: CommitEvent[] = [];
    const run = (): Promise<Answer> =>
      rc.db.transaction((tx) => answerOnce(tx, req, retention, () => handler({ ...rc, db: joined(tx), deferred }, c)));
    let answer: Answer;
    try {
      answer = await run();
    } catch (e) {
      if (!(e instanceof StoreMissing)) throw e;
      if (!(await createStore(rc.db)))
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

/** Creates the store when the service's role may; false when it may not (the request is then answered 500, naming the command that creates it). */
async function createStore(db: Executor): Promise<boolean> {
  try {
    await db.query({ text: IDEMPOTENCY_TABLE_DDL, values: [] });
    return true;
  } catch {
    return false;
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
