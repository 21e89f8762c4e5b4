/**
 * Reads a request body as JSON. A body that is not JSON is a 400 problem at
 * location `body` (docs/http.md); the size ceiling is enforced before this by
 * the body-limit middleware (413).
 */
import type { Context } from "hono";
import { ProblemError } from "../problem.js";

/**
 * Returns the parsed JSON value of the request body.
 * @throws ProblemError 400 when the body is empty or not valid JSON
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") {
    throw new ProblemError(400, "invalid-body", "The request body is empty; a JSON object is expected.", [
      { location: "body", detail: "expected a JSON object" },
    ]);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProblemError(400, "invalid-body", "The request body is not valid JSON.", [
      { location: "body", detail: "malformed JSON" },
    ]);
  }
}
