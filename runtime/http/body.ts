/**
 * Reads a request body as JSON. A body that is not JSON is a 400 problem at
 * location `body` (docs/http.md); the size ceiling is enforced before this by
 * the body-limit middleware (413).
 */
import type { Context } from "hono";
import { ProblemError, problem } from "../problem.js";

/** `application/json` or a `+json` type, with any parameters (`; charset=utf-8`). */
const JSON_TYPE = /^application\/(?:json|[\w.+-]+\+json)\s*(?:;.*)?$/i;

/**
 * Refuses a body whose `Content-Type` is not JSON, or that has none: 415
 * with a problem document (docs/http.md;
 * docs/decisions/0313-write-content-type.md).
 * @throws ProblemError 415 `unsupported-media-type` at location `header.content-type`
 */
export function refuseNonJson(contentType: string | undefined): void {
  if (contentType !== undefined && JSON_TYPE.test(contentType.trim())) return;
  const given = contentType === undefined ? "no Content-Type" : `Content-Type ${contentType}`;
  throw problem("unsupported-media-type", `The body must be JSON (application/json); the request has ${given}.`, [
    {
      location: "header.content-type",
      detail: "expected application/json",
      ...(contentType !== undefined ? { value: contentType.slice(0, 100) } : {}),
      allowed: ["application/json"],
    },
  ]);
}

/**
 * Returns the parsed JSON value of the request body.
 * @throws ProblemError 415 when the Content-Type is not JSON (see {@link refuseNonJson})
 * @throws ProblemError 400 when the body is empty or not valid JSON
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  refuseNonJson(c.req.header("content-type"));
  const text = await c.req.text();
  if (text.trim() === "") {
    throw problem("invalid-body", "The request body is empty; a JSON object is expected.", [
      { location: "body", detail: "expected a JSON object" },
    ]);
  }
  return parseJson(text);
}

/** `text` as JSON. @throws ProblemError 400 `invalid-body` at `body` when it is malformed */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw problem("invalid-body", "The request body is not valid JSON.", [
      { location: "body", detail: "malformed JSON" },
    ]);
  }
}

/**
 * The parsed JSON body of a request that may come without one (a declared
 * action whose input has no required field): undefined when the body is
 * empty, whatever its Content-Type; otherwise as {@link readJsonBody}.
 * @throws ProblemError 415 when a body is sent that is not JSON; 400 when it is malformed
 */
export async function readOptionalJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") return undefined;
  refuseNonJson(c.req.header("content-type"));
  return parseJson(text);
}
