import process from "node:process";
import { serve } from "@hono/node-server";
import { stopOnSignal } from "resc/ops";
import { createApp, openDatabase } from "./app.js";

const db = await openDatabase();
const port = Number(process.env.PORT ?? 3000);
const stopping = new AbortController();
const server = serve({ fetch: createApp(db, stopping.signal).fetch, hostname: "127.0.0.1", port }, (info) =>
  console.log(`serving on http://127.0.0.1:${info.port} (API description: /docs)`),
);
// Streams and webhook delivery end first, so the server can close; then the database, so the embedded one flushes.
await stopOnSignal(server, { beforeClose: () => stopping.abort(), close: () => db.close() });
