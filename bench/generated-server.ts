/**
 * Process entry of a service built the way `resc init` lays one out: the
 * Hono module `resc generate` wrote for Pagila (fixtures/pagila/expected/hono,
 * the golden output) mounted on a Hono app over a pg executor with the
 * fixture's hooks module (its declared action), with no
 * compiler at run time. `DATABASE_URL` and `PORT` as for the hand-written
 * server; prints `listening <port>` once ready. The start-up bench
 * (bench/compiler.ts) times it from launch to its first 200.
 */
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createPgExecutor } from "resc/runtime";
import { mount } from "../fixtures/pagila/expected/hono/api/index.js";
import { hooks } from "../fixtures/pagila/hooks.js";

const db = createPgExecutor({
  connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/pagila",
});
const app = new Hono();
const mounted = mount(app, { db, hooks });
if (!mounted.ok) throw new Error(mounted.errors.map((e) => e.message).join("\n"));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
process.once("SIGTERM", () => server.close(() => void db.close().finally(() => process.exit(0))));
