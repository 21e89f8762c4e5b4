/**
 * Process entry of the resc side: compiles the schema file `SCHEMA_FILE`
 * (the bench passes `fixtures/pagila/pagila.resource`) in memory and serves
 * it over a pg executor (default pool of 10), the way `resc dev
 * --database-url` does, minus the per-request log line and the start-up
 * schema comparison. `DATABASE_URL` and `PORT` as for the hand-written
 * server; prints `listening <port>` once ready.
 */
import { readFile } from "node:fs/promises";
import { serve } from "@hono/node-server";
import { buildDescriptor, compileSource } from "../compiler/index.js";
import { formatDiagnostics } from "../grammar/index.js";
import { createPgExecutor } from "../runtime/exec/pg.js";
import { createDevApp } from "../cli/dev/app.js";

const file = process.env.SCHEMA_FILE;
if (!file) throw new Error("SCHEMA_FILE is not set");
const source = await readFile(file, "utf8");
const compiled = compileSource(source, file);
if (!compiled.ok) throw new Error(formatDiagnostics(compiled.diagnostics, source));
const db = createPgExecutor({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/pagila",
});
// RESC_WARM_UP=0 starts cold, to measure what the warm-up saves (bench/first-seconds.ts).
if (process.env.RESC_WARM_UP !== "0") await db.warmUp();
const { app, mounted } = createDevApp(buildDescriptor(compiled.schema), { db });
if (!mounted.ok) throw new Error(mounted.errors.map((e) => `${e.resource}: ${e.message}`).join("\n"));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
process.once("SIGTERM", () => server.close(() => void db.close().finally(() => process.exit(0))));
