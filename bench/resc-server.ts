/**
 * Process entry of the resc side: by default the app `resc serve` runs
 * (cli/serve/app.ts: request ids, metrics, health, problem documents, the
 * API routes) over a pg executor (pool of 10, opened before listening),
 * compiled from `SCHEMA_FILE` (the bench passes
 * `fixtures/pagila/pagila.resource`, with its hooks module for the declared
 * action). Request logging is at `warn`, as a
 * production deployment that ships access logs elsewhere would run it;
 * `LOG_LEVEL=info` logs every request. With `RESC_LAYER=bare` it serves the
 * bare API app instead (the mounted routes and the problem documents for
 * unknown routes, nothing of the production layer), so one run shows what
 * the layer costs. `DATABASE_URL` and `PORT` as for the hand-written
 * server; prints `listening <port>` once ready.
 */
import { readFile } from "node:fs/promises";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { buildDescriptor, compileSource } from "../compiler/index.js";
import { formatDiagnostics } from "../grammar/index.js";
import { createPgExecutor } from "../runtime/exec/pg.js";
import { mountService, type MountResult } from "../runtime/http/mount.js";
import { answerProblems } from "../runtime/ops/index.js";
import { createServeApp } from "../cli/serve/app.js";
import { hooks } from "../fixtures/pagila/hooks.js";

const file = process.env.SCHEMA_FILE;
if (!file) throw new Error("SCHEMA_FILE is not set");
const source = await readFile(file, "utf8");
const compiled = compileSource(source, file);
if (!compiled.ok) throw new Error(formatDiagnostics(compiled.diagnostics, source));
const db = createPgExecutor({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/pagila",
});
if (process.env.RESC_WARM_UP !== "0") await db.warmUp();
const service = buildDescriptor(compiled.schema);

/** The bare API app: the routes and nothing around them. */
function bareApp(): { app: Hono; mounted: MountResult } {
  const app = new Hono();
  answerProblems(app, (e) => console.error(e));
  return { app, mounted: mountService(app, service, { db, hooks }) };
}

const { app, mounted } =
  process.env.RESC_LAYER === "bare"
    ? bareApp()
    : createServeApp({ schema: compiled.schema, service, db, hooks, logLevel: process.env.LOG_LEVEL ?? "warn" });
if (!mounted.ok) throw new Error(mounted.errors.map((e) => `${e.resource}: ${e.message}`).join("\n"));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
process.once("SIGTERM", () => server.close(() => void db.close().finally(() => process.exit(0))));
