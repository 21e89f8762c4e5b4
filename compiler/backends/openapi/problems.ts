/**
 * The problem document (RFC 9457, docs/http.md "Problem documents") and the
 * error responses that carry it, declared once under `components` and
 * referenced by every operation that can answer them.
 */
import { DEFAULT_MAX_BODY_BYTES } from "../../../runtime/descriptor.js";
import type { Header, JsonSchema, Response } from "./types.js";

/** Schema names under `components.schemas`. */
export const PROBLEM_SCHEMA = "Problem";
const PROBLEM_ITEM_SCHEMA = "ProblemItem";

/** The `Problem` and `ProblemItem` schemas, mirroring runtime/problem.ts. */
export function problemSchemas(): Record<string, JsonSchema> {
  return {
    [PROBLEM_SCHEMA]: {
      type: "object",
      description: "A problem document (RFC 9457), served as application/problem+json for every refusal.",
      properties: {
        type: {
          type: "string",
          description: "A stable relative URI per kind of problem, e.g. /problems/invalid-query.",
        },
        title: { type: "string", description: "The HTTP status phrase." },
        status: { type: "integer", description: "The HTTP status code." },
        detail: { type: "string", description: "The first problem, and how many more there are." },
        errors: {
          type: "array",
          description: "Every problem of the request, reported at once.",
          items: { $ref: `#/components/schemas/${PROBLEM_ITEM_SCHEMA}` },
        },
      },
      required: ["type", "title", "status", "detail", "errors"],
    },
    [PROBLEM_ITEM_SCHEMA]: {
      type: "object",
      properties: {
        location: { type: "string", description: "query.<param>, header.<name>, body, body.<field> or path.id." },
        detail: { type: "string" },
        value: { description: "The refused value, when it can be echoed (any JSON value; today a string)." },
        allowed: {
          type: "array",
          items: { type: "string" },
          description: "The valid alternatives (columns, operators, relations, enum values, fields).",
        },
      },
      required: ["location", "detail"],
    },
  };
}

/** A status the runtime may answer with a problem document, and its response name under `components.responses`. */
export interface ProblemStatus {
  status: string;
  name: string;
  description: string;
}

/** Every problem status the handlers produce (docs/http.md "Status codes"). */
export const PROBLEM_STATUSES = {
  badRequest: {
    status: "400",
    name: "BadRequest",
    description:
      "The request names something this resource does not allow, or a value does not parse; `allowed` lists the alternatives.",
  },
  notFound: { status: "404", name: "NotFound", description: "No row has this key (or a hook hides it)." },
  conflict: {
    status: "409",
    name: "Conflict",
    description:
      "A row with the same unique value already exists, (an action) the row is in a state the action does not apply to, or a request with the same Idempotency-Key is still running; the detail says which.",
  },
  stillReferenced: {
    status: "409",
    name: "StillReferenced",
    description: "Other rows still refer to this row (type /problems/still-referenced, location path.id).",
  },
  preconditionFailed: {
    status: "412",
    name: "PreconditionFailed",
    description:
      "If-Match names a version the row is no longer at (type /problems/precondition-failed, location header.if-match); nothing was written. Read the row again.",
  },
  tooLarge: {
    status: "413",
    name: "ContentTooLarge",
    // The document is compiled from the schema, which does not know the application's `maxBodyBytes`: it states the default.
    description: `The request body is larger than the service accepts (by default ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024} MiB).`,
  },
  unsupportedMedia: {
    status: "415",
    name: "UnsupportedMediaType",
    description: "The body is not declared as JSON: send Content-Type: application/json.",
  },
  unprocessable: {
    status: "422",
    name: "UnprocessableContent",
    description:
      "The row breaks a rule of the table: a missing referenced row, a check, a not-null constraint, or (an action) a rule its implementation states; or the Idempotency-Key was already used for another request.",
  },
  hookMisconfigured: {
    status: "500",
    name: "HookMisconfigured",
    description:
      "A hook the service cannot apply (type /problems/hook-misconfigured): a BeforeQuery predicate that does not fit the table or an expansion, or an AfterCommit hook on a resource without transactions. The server's fault; the detail names the table.",
  },
  writeFault: {
    status: "500",
    name: "WriteServerError",
    description:
      "The server's fault on a write: a hook it cannot apply (type /problems/hook-misconfigured), or a commit whose connection was lost (type /problems/outcome-unknown), after which the write may or may not be stored: repeat it only with the same Idempotency-Key (the retry learns the outcome), or read before writing again.",
  },
  unavailable: {
    status: "503",
    name: "ServiceUnavailable",
    description:
      "The database is down or busy, a table the request needs is locked, or the request conflicted with a concurrent one; try again after Retry-After seconds (docs/http.md, When the database fails).",
  },
  timeout: { status: "504", name: "GatewayTimeout", description: "The query took too long and was cancelled." },
} as const satisfies Record<string, ProblemStatus>;

/** `components.responses`: one response per problem status, each a problem document. */
export function problemResponses(): Record<string, Response> {
  const out: Record<string, Response> = {};
  for (const p of Object.values(PROBLEM_STATUSES)) {
    // Every 503 carries Retry-After (docs/decisions/0910-connection-faults.md).
    const retry: { headers?: Record<string, Header> } =
      p.status === "503"
        ? {
            headers: {
              "Retry-After": {
                description: "Seconds to wait before trying again.",
                schema: { type: "integer", minimum: 0 },
              },
            },
          }
        : {};
    out[p.name] = {
      description: p.description,
      ...retry,
      content: { "application/problem+json": { schema: { $ref: `#/components/schemas/${PROBLEM_SCHEMA}` } } },
    };
  }
  return out;
}

/** References to the problem responses of `statuses`, keyed by status code. */
export function problemRefs(statuses: readonly ProblemStatus[]): Record<string, Response> {
  return Object.fromEntries(statuses.map((p) => [p.status, responseRef(p)]));
}

const refs = new Map<string, Response>();

/** The one `$ref` object of a status's response: every operation shares it, as the printed JSON does (bench/COMPILER.md). */
function responseRef(p: ProblemStatus): Response {
  let r = refs.get(p.name);
  if (!r) refs.set(p.name, (r = { $ref: `#/components/responses/${p.name}` }));
  return r;
}
