/**
 * What the authentication suites share (docs/decisions/1367-access-rules.md,
 * "Authentication"): a small schema of notes, its service with an `auth`
 * descriptor built by hand (the grammar of `auth { … }` is not what these
 * suites test), an embedded database holding it, and an app serving it the
 * way `resc serve` does: `mountService` behind the problem fallbacks, with a
 * hand-written public route and the OpenAPI document beside the resources.
 * A middleware in front records the principal each request ended with.
 */
import { Hono, type MiddlewareHandler } from "hono";
import { SignJWT, type JWTPayload } from "jose";
import { expect } from "vitest";
import type { AuthDescriptor, ClaimDescriptor, JwtDescriptor, ServiceDescriptor } from "../../runtime/descriptor.js";
import { principalOf, type Principal } from "../../runtime/auth/principal.js";
import { mountDocs } from "../../runtime/http/docs.js";
import { mountService, type MountOptions } from "../../runtime/http/mount.js";
import { answerProblems } from "../../runtime/ops/fallbacks.js";
import type { TestDatabase } from "../support/db.js";
import { compileText, sendTo, type Answer } from "../support/service.js";
import { freshDatabase } from "../idempotency/support.js";

/** The schema every suite serves: notes, listed and written by anyone the auth block admits. */
export const NOTES = `
api {
  title   = "Notes"
  version = "1.0.0"
}

table notes {
  id    bigint @primary_key @default(identity)
  owner text   @filterable
  body  text
  resource "/notes" { ops = [crud, list] }
}
`;

/** The HS256 secret of the suites (64 bytes, so HS512 accepts it too). */
export const SECRET = "s".repeat(32) + "t".repeat(32);

/** The environment variable the suites' settings name for it. */
export const SECRET_ENV = "TEST_NOTES_JWT_SECRET";

/** A claim declaration as the compiler would build it. */
export function claim(
  name: string,
  kind: ClaimDescriptor["kind"],
  extra: Partial<ClaimDescriptor> = {},
): ClaimDescriptor {
  return { name, path: [name], kind, array: false, sqlType: kind, nullable: false, ...extra };
}

/** HS256 settings over {@link SECRET_ENV}, issuer `notes-idp`, audience `notes`. */
export function hsSettings(extra: Partial<JwtDescriptor> = {}): JwtDescriptor {
  return {
    algorithms: ["HS256"],
    secretEnv: SECRET_ENV,
    issuer: "notes-idp",
    audience: "notes",
    clockToleranceSeconds: 30,
    ...extra,
  };
}

/** An `auth` descriptor: roles member and admin, role claim `role`, the given settings and claims. */
export function authWith(extra: Partial<AuthDescriptor> = {}): AuthDescriptor {
  return { jwt: hsSettings(), roles: ["member", "admin"], roleClaim: ["role"], claims: [], ...extra };
}

/** The notes service with `auth` attached, and its DDL. */
export function notesService(auth: AuthDescriptor | undefined): { service: ServiceDescriptor; ddl: string } {
  const { service, ddl } = compileText(NOTES, "notes.resource");
  if (!auth) return { service, ddl };
  // Every declared role may do everything: these tests are about who is asking, not what they may do
  // (test/access is); without a grant a governed table is served to nobody (docs/decisions/1367-access-rules.md).
  const access = [
    { roles: auth.roles, ops: ["list", "read", "create", "update", "delete"], rows: [], stamps: [], hide: [] },
  ];
  return { service: { ...service, auth, tables: service.tables.map((t) => ({ ...t, access })) }, ddl };
}

/** An embedded database holding the notes table and one note. */
export async function notesDatabase(label: string): Promise<TestDatabase> {
  const db = await freshDatabase("pglite", label);
  await db.executor.script(notesService(undefined).ddl);
  await db.executor.script("INSERT INTO notes (owner, body) VALUES ('ada', 'first note');");
  return db;
}

/** A served notes app, a sender and what it saw. */
export interface NotesApp {
  app: Hono;
  /** Sends `method path` with `headers` (and `body` as JSON). */
  send<T = any>(method: string, path: string, headers?: Record<string, string>, body?: unknown): Promise<Answer<T>>;
  /** `GET /notes` with `Authorization: Bearer <token>` (none when `token` is undefined). */
  list<T = any>(token?: string): Promise<Answer<T>>;
  /** The principal of the last request, as it left the app (undefined when none was set). */
  last(): Principal | undefined;
}

/**
 * Serves the notes service on `db` with `options` (the database given),
 * behind an optional `front` middleware (a hand-written `--middleware`),
 * with `POST /auth/login` (hand-written, public) and the OpenAPI document.
 * @throws whatever mountService throws (an AuthConfigError), or an Error listing registration errors
 */
export function serveNotes(
  service: ServiceDescriptor,
  db: TestDatabase,
  options: Omit<MountOptions, "db"> = {},
  front?: MiddlewareHandler,
): NotesApp {
  const app = new Hono();
  let seen: Principal | undefined;
  app.use(async (c, next) => {
    seen = undefined;
    await next();
    seen = principalOf(c);
  });
  answerProblems(app, (e) => console.error(e));
  if (front) app.use(front);
  app.post("/auth/login", (c) => c.json({ token: "hand-written" }));
  const r = mountService(app, service, { db: db.executor, ...options });
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  mountDocs(app, { openapi: "3.1.0", info: { title: "Notes", version: "1.0.0" }, paths: {} });
  const send = <T>(method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    sendTo<T>(app, method, path, body, headers);
  return {
    app,
    send,
    list: (token) => send("GET", "/notes", token === undefined ? {} : { authorization: `Bearer ${token}` }),
    last: () => seen,
  };
}

/** Seconds since the epoch, now. */
export function now(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * An HS256 token over {@link SECRET} (or `secret`): `sub` ada, role member,
 * issuer and audience as {@link hsSettings}, expiring in an hour; `payload`
 * adds to or replaces members (undefined removes one).
 */
export function hsToken(payload: Record<string, unknown> = {}, secret = SECRET, alg = "HS256"): Promise<string> {
  const claims: Record<string, unknown> = {
    sub: "ada",
    role: "member",
    iss: "notes-idp",
    aud: "notes",
    iat: now(),
    exp: now() + 3600,
    ...payload,
  };
  for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({ alg, typ: "JWT" })
    .sign(new TextEncoder().encode(secret));
}

/** base64url of a JSON value. */
export function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/**
 * Asserts that `answer` is the 401 of a refused token: `WWW-Authenticate`
 * with `error="invalid_token"`, the problem document at
 * `header.authorization`, and nothing in the body saying why (no
 * "signature", "expired", "kid", "issuer", "audience", no part of the token).
 */
export function expectRefused(answer: Answer, token?: string): void {
  expect(answer.status).toBe(401);
  expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]*", error="invalid_token"$/);
  expect(answer.headers.get("content-type")).toBe("application/problem+json");
  expect(answer.body).toMatchObject({
    type: "/problems/unauthorized",
    status: 401,
    title: "Unauthorized",
    detail: "The bearer token was refused.",
    errors: [{ location: "header.authorization", detail: "refused" }],
  });
  for (const word of ["signature", "expired", "kid", "issuer", "audience", "claim", "role", "development", "exp"])
    expect(answer.text.toLowerCase()).not.toContain(word);
  if (token) for (const part of token.split(".")) if (part.length > 8) expect(answer.text).not.toContain(part);
}

/** Asserts that `answer` is the 401 of a request without a token where no anonymous role admits one. */
export function expectChallenged(answer: Answer): void {
  expect(answer.status).toBe(401);
  expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer realm="[^"]*"$/);
  expect(answer.body).toMatchObject({
    type: "/problems/unauthorized",
    errors: [{ location: "header.authorization" }],
  });
}
