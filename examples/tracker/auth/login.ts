/**
 * `POST /auth/login`, the tracker's one hand-written endpoint (spec:
 * Authentication 5): `{email, password}` in, `{token}` out. Not generated,
 * no CLI command. Decisions: docs/decisions/0701-tracker-authentication.md.
 */
import type { Context } from "hono";
import type { Executor, ProblemItem } from "resc/runtime";
import { invalidBody, unauthorized } from "../problems.js";
import { verifyPassword } from "./password.js";
import { issueToken } from "./token.js";

/** What {@link loginHandler} needs. */
export interface LoginOptions {
  db: Executor;
  /** HS256 secret the token is signed with. */
  secret: string;
  /** Token lifetime in seconds. */
  ttlSeconds: number;
}

/** The successful answer: the bearer token and its lifetime in seconds. */
export interface LoginResponse {
  token: string;
  expires_in: number;
}

/** Longest email a user can have (`users.email` is `varchar(320)`). */
const MAX_EMAIL = 320;
/** Longest password read, in characters, so a huge body cannot feed scrypt megabytes. */
const MAX_PASSWORD = 1024;
const FIELDS = ["email", "password"];

/** The credentials of a well-formed body, or every problem with it. */
function readCredentials(text: string): { email: string; password: string } | ProblemItem[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return [{ location: "body", detail: "expected a JSON object with email and password" }];
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return [{ location: "body", detail: "expected a JSON object with email and password" }];
  }
  const b = body as Record<string, unknown>;
  const problems: ProblemItem[] = [];
  for (const name of Object.keys(b)) {
    if (!FIELDS.includes(name)) problems.push({ location: `body.${name}`, detail: "unknown field", allowed: FIELDS });
  }
  const field = (name: string, max: number): string | undefined => {
    const v = b[name];
    if (v === undefined) problems.push({ location: `body.${name}`, detail: `${name} is required` });
    else if (typeof v !== "string" || v.length === 0)
      problems.push({ location: `body.${name}`, detail: `${name} must be a non-empty string` });
    else if (v.length > max)
      problems.push({ location: `body.${name}`, detail: `${name} is longer than ${max} characters` });
    else return v;
    return undefined;
  };
  const email = field("email", MAX_EMAIL);
  const password = field("password", MAX_PASSWORD);
  if (problems.length > 0 || email === undefined || password === undefined) return problems;
  return { email, password };
}

/**
 * Builds the handler. A malformed body is a 400 problem document listing
 * every problem; an unknown email and a wrong password are the same 401
 * (same detail, same scrypt work), so the endpoint does not tell which
 * emails exist. The token response is never cached (`Cache-Control: no-store`).
 */
export function loginHandler(options: LoginOptions): (c: Context) => Promise<Response> {
  return async (c) => {
    const creds = readCredentials(await c.req.text());
    if (Array.isArray(creds)) return invalidBody(c, creds);
    const found = await options.db.query({
      text: `SELECT "id", "org_id", "password_hash" FROM "users" WHERE "email" = $1`,
      values: [creds.email],
    });
    const user = found.rows[0];
    const ok = await verifyPassword(creds.password, user?.password_hash ?? undefined);
    if (!ok || !user?.id || !user.org_id) {
      return unauthorized(c, "The email or the password is not correct.", "body");
    }
    const token = await issueToken({ userId: user.id, orgId: user.org_id }, options.secret, options.ttlSeconds);
    const out: LoginResponse = { token, expires_in: options.ttlSeconds };
    return c.json(out, 200, { "cache-control": "no-store" });
  };
}
