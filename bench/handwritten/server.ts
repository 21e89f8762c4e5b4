/**
 * Process entry of the hand-written server: `DATABASE_URL` names the
 * database, `PORT` the port on 127.0.0.1 (0 picks a free one). Prints
 * `listening <port>` once ready and stops on SIGTERM.
 */
import { serve } from "@hono/node-server";
import { createHandwrittenApp } from "./app.js";
import { createPool } from "./pool.js";

const pool = createPool(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/pagila");
const app = createHandwrittenApp(pool);
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: Number(process.env.PORT ?? 0) }, (info) => {
  console.log(`listening ${info.port}`);
});
process.once("SIGTERM", () => server.close(() => void pool.end().finally(() => process.exit(0))));
