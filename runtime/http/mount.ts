/**
 * Mounts every exposed operation of a service on a Hono app (spec:
 * Generated operations). An operation not exposed gets no route at all, so
 * it answers the app's 404, never a 405.
 */
import type { Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ServiceDescriptor } from "../descriptor.js";
import type { Executor } from "../exec/executor.js";
import type { Hooks } from "../hooks.js";
import { ProblemError } from "../problem.js";
import type { ResourceContext } from "./context.js";
import { toProblem } from "./db-errors.js";
import { handleList } from "./list.js";
import { handleRead } from "./read.js";
import { problemResponse } from "./respond.js";
import { handleCreate, handleDelete, handleUpdate } from "./write.js";

/** Options of {@link mountService}. */
export interface MountOptions {
  /** The database the handlers query. */
  db: Executor;
  /** BeforeQuery / BeforeCreate / AfterCommit hooks by table name. */
  hooks?: Hooks;
  /** Prefix of every route, e.g. `/api`; default none. */
  basePath?: string;
  /** Largest accepted request body in bytes (larger: 413); default 1 MiB. */
  maxBodyBytes?: number;
  /** Receives faults answered with a 5xx (default: console.error). */
  logError?: (e: unknown) => void;
}

/** A problem that prevents a resource from mounting (for example a scoped table without a BeforeQuery hook). */
export interface RegistrationError {
  resource: string;
  message: string;
}

/** Outcome of mounting: registration errors are returned, never thrown (spec: Column capabilities). */
export type MountResult = { ok: true } | { ok: false; errors: RegistrationError[] };

type Handler = (rc: ResourceContext, c: Context) => Promise<Response>;

function route(rc: ResourceContext, handler: Handler) {
  return async (c: Context): Promise<Response> => {
    try {
      return await handler(rc, c);
    } catch (e) {
      const p = toProblem(e, rc.table);
      if (p.status >= 500 && !(e instanceof ProblemError)) rc.logError(e);
      return problemResponse(c, p);
    }
  };
}

/**
 * Registers the routes of every table that has a resource block.
 *
 * @returns `{ok: true}`, or every registration error found (nothing is mounted then)
 */
export function mountService(app: Hono, service: ServiceDescriptor, options: MountOptions): MountResult {
  const hooks = options.hooks ?? {};
  const base = (options.basePath ?? "").replace(/\/$/, "");
  const limit = bodyLimit({
    maxSize: options.maxBodyBytes ?? 1024 * 1024,
    onError: (c) =>
      problemResponse(
        c,
        new ProblemError(413, "body-too-large", "The request body is larger than this service accepts.", [
          { location: "body", detail: "too large" },
        ]),
      ),
  });
  const logError = options.logError ?? ((e: unknown) => console.error(e));
  for (const table of service.tables) {
    const res = table.resource;
    if (!res) continue;
    const collectionPath = base + res.path;
    const rc: ResourceContext = { service, table, db: options.db, hooks, collectionPath, logError };
    const item = `${collectionPath}/:id`;
    if (res.ops.list) app.get(collectionPath, route(rc, handleList));
    if (res.ops.read) app.get(item, route(rc, handleRead));
    if (res.ops.create) app.post(collectionPath, limit, route(rc, handleCreate));
    if (res.ops.update) app.patch(item, limit, route(rc, handleUpdate));
    if (res.ops.delete) app.delete(item, route(rc, handleDelete));
  }
  return { ok: true };
}
