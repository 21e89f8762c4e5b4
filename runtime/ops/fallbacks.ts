/**
 * What every app serving a resc module answers outside its routes: a 404
 * problem document for a path no route matches and a 500 one for an error
 * no handler caught, whose details go to the log and never to the client
 * (docs/http.md, "Problem documents"). `resc dev`, `resc serve`, the
 * project `resc init` writes and the tracker all install these, so they
 * answer alike.
 */
import type { Context, Hono } from "hono";
import { problemResponse } from "../http/respond.js";
import { problem } from "../problem.js";

/**
 * Installs `notFound` and `onError` on `app`.
 * @param logError receives every error no handler caught, with its request, before the 500 is sent
 */
export function answerProblems(app: Hono, logError: (e: unknown, c: Context) => void): void {
  app.notFound((c) => problemResponse(c, problem("not-found", `No route matches ${c.req.method} ${c.req.path}.`)));
  app.onError((e, c) => {
    logError(e, c);
    return problemResponse(c, problem("internal", "The request could not be completed."));
  });
}
