/**
 * Process entry of one variant of `npm run bench:access` (bench/access.ts):
 * the app `resc serve` runs over a pg executor (pool of 10, opened before
 * listening), serving the tickets table of bench/access-service.ts the way
 * `ACCESS_VARIANT` (`declared`, `hook` or `none`) says, request logging at
 * `warn`. `DATABASE_URL` and `PORT` as for bench/resc-server.ts; prints
 * `listening <port>` once ready.
 */
import { serve } from "@hono/node-server";
import { buildDescriptor, compileSource } from "../compiler/index.js";
import { formatDiagnostics } from "../grammar/index.js";
import { createPgExecutor } from "../runtime/exec/pg.js";
import { ACCESS_SCHEMA, ACCESS_SCHEMA_FILE, ACCESS_VARIANTS, accessApp, type AccessVariant } from "./access-service.js";

const variant = process.env.ACCESS_VARIANT as AccessVariant;
if (!ACCESS_VARIANTS.includes(variant))
  throw new Error(`ACCESS_VARIANT is ${variant}, not one of ${ACCESS_VARIANTS.join(", ")}`);
const compiled = compileSource(ACCESS_SCHEMA, ACCESS_SCHEMA_FILE);
if (!compiled.ok) throw new Error(formatDiagnostics(compiled.diagnostics, ACCESS_SCHEMA));
const db = createPgExecutor({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/bench",
});
if (process.env.RESC_WARM_UP !== "0") await db.warmUp();
const { app, mounted } = accessApp(variant, {
  schema: compiled.schema,
  service: buildDescriptor(compiled.schema),
  db,
  logLevel: process.env.LOG_LEVEL ?? "warn",
});
if (!mounted.ok) throw new Error(mounted.errors.map((e) => `${e.resource}: ${e.message}`).join("\n"));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
process.once("SIGTERM", () => server.close(() => void db.close().finally(() => process.exit(0))));
