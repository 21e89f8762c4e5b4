/**
 * Refusals particular to writes (docs/http.md): query parameters a write
 * does not take, and a delete that other rows still refer to.
 */
import type { Context } from "hono";
import { badRequest, ProblemError, problem } from "../problem.js";
import type { ResourceContext } from "./context.js";

/** The write operations, as named in problem details. */
export type WriteOperation = "create" | "update" | "delete" | "action";

/**
 * Refuses every query parameter of a write but those in `takes` (a create
 * takes `on_conflict`, decision 1332): they return the row without
 * expansions (spec: Generated operations), so any other parameter names
 * something the schema did not allow (spec, guarantee 3); `allowed` lists
 * `takes`.
 * @throws ProblemError 400 `invalid-query` listing each parameter
 */
export function refuseQueryParameters(c: Context, op: WriteOperation, takes: readonly string[] = []): void {
  const url = new URL(c.req.url);
  const names = [...new Set([...url.searchParams.keys()])].filter((n) => !takes.includes(n));
  if (names.length === 0) return;
  const errors = names.map((name) => ({
    location: `query.${name}`,
    detail: `unknown parameter ${name}: ${op === "action" ? "an" : "a"} ${op} takes ${takes.length === 0 ? "no query parameters" : takes.join(", ")}`,
    allowed: [...takes],
  }));
  throw badRequest("invalid-query", errors);
}

interface DriverError {
  code?: unknown;
  table?: unknown;
}

/**
 * The 409 of a DELETE whose row other rows still refer to (SQLSTATE 23503
 * raised by the delete), as PostgREST users expect for a foreign-key
 * conflict. A DELETE has no body: the location is the path's id, or for a
 * filtered delete (`id` undefined) the query whose filters matched the row
 * (docs/decisions/1333-filtered-writes.md), without the row's key, which
 * PostgreSQL's detail holds and the request did not name. The referencing
 * table is named by its resource path when it has one, and not named at all
 * otherwise, so an unexposed table's name never leaks
 * (docs/decisions/0312-delete-still-referenced.md).
 *
 * @param id the path's id of a DELETE by key (a composite key's values joined by ", "); undefined for a filtered delete
 * @returns the problem, or undefined when `e` is not a foreign-key violation
 */
export function stillReferenced(rc: ResourceContext, e: unknown, id: string | undefined): ProblemError | undefined {
  const err = e as DriverError | null;
  if (err?.code !== "23503") return undefined;
  const referencing = typeof err.table === "string" ? rc.service.tables.find((t) => t.name === err.table) : undefined;
  const by = referencing?.resource ? `rows of ${referencing.resource.path}` : "other rows";
  if (id === undefined)
    return problem(
      "still-referenced",
      `A row these filters match is still referred to by ${by}; remove or change those first. Nothing was deleted.`,
      [{ location: "query", detail: `a matching row is still referred to by ${by}` }],
    );
  return problem("still-referenced", `The row is still referred to by ${by}; remove or change those first.`, [
    { location: rc.table.primaryKey.length > 1 ? "path" : "path.id", detail: `still referred to by ${by}`, value: id },
  ]);
}
