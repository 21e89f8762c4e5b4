/**
 * The OpenAPI document the tracker serves at `/openapi.json`: the generated
 * one (`generated/tracker/openapi.ts`, which already answers 401 and 403 on
 * every operation, from spec.resource's `auth` and `access` blocks) plus
 * what the application adds by hand, so the page at `/docs` tells the whole
 * truth: the hand-written `POST /auth/login` (spec: Authentication 5) and
 * the tracker's realm and way of signing in in the 401's description
 * (docs/decisions/0701-tracker-authentication.md).
 */
import type { OpenApiData } from "resc/runtime";

type Json = Record<string, unknown>;

const PROBLEM = { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } };

const UNAUTHORIZED: Json = {
  description:
    "No bearer token, or one that is malformed, forged or expired (the problem never says which); sign in with POST /auth/login.",
  headers: {
    "WWW-Authenticate": {
      description:
        'A Bearer challenge: `Bearer realm="tracker"`, with `, error="invalid_token"` when a token was refused.',
      schema: { type: "string" },
    },
  },
  content: PROBLEM,
};

const LOGIN: Json = {
  post: {
    tags: ["auth"],
    operationId: "login",
    summary: "Sign in",
    description:
      "Hand-written: exchanges an email and a password for a bearer token (HS256 JWT, valid for `expires_in` seconds). A wrong password and an unknown email answer the same 401.",
    security: [],
    requestBody: {
      required: true,
      content: {
        "application/json": {
          schema: {
            type: "object",
            required: ["email", "password"],
            additionalProperties: false,
            properties: {
              email: { type: "string", minLength: 1, maxLength: 320 },
              password: { type: "string", minLength: 1, maxLength: 1024 },
            },
          },
        },
      },
    },
    responses: {
      "200": {
        description: "The token; send it as `Authorization: Bearer <token>`.",
        headers: { "Cache-Control": { schema: { type: "string", const: "no-store" } } },
        content: {
          "application/json": {
            schema: {
              type: "object",
              required: ["token", "expires_in"],
              properties: { token: { type: "string" }, expires_in: { type: "integer", minimum: 1 } },
            },
          },
        },
      },
      "400": { $ref: "#/components/responses/BadRequest" },
      "401": { $ref: "#/components/responses/Unauthorized" },
      "413": { $ref: "#/components/responses/ContentTooLarge" },
    },
  },
};

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** `parent[key]` as an object, created empty when absent. */
function member(parent: Json, key: string): Json {
  const v = parent[key];
  if (isObject(v)) return v;
  const created: Json = {};
  parent[key] = created;
  return created;
}

/**
 * A copy of `generated` with the login operation, an `auth` tag and the
 * tracker's `Unauthorized` response in the components (the one every
 * generated operation's 401 refers to). `generated` is left untouched.
 * @throws Error when the generated document already has a `/auth/login` path (the schema took the route)
 */
export function trackerDocument(generated: OpenApiData): OpenApiData {
  const doc = structuredClone(generated);
  if (Object.hasOwn(doc.paths, "/auth/login"))
    throw new Error("the schema serves /auth/login, which the app needs for signing in");
  doc.paths["/auth/login"] = LOGIN;
  member(member(doc, "components"), "responses").Unauthorized = UNAUTHORIZED;
  const tags: unknown[] = Array.isArray(doc.tags) ? doc.tags : [];
  doc.tags = [...tags, { name: "auth", description: "Signing in (hand-written, not generated)." }];
  return doc;
}
