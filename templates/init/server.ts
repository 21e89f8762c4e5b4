import process from "node:process";
import { serve } from "@hono/node-server";
import { answerClientErrors, stopOnSignal } from "resc/ops";
import { createApp, openDatabase } from "./app.js";

const db = await openDatabase();
const port = Number(process.env.PORT ?? 3000);
const server = serve({ fetch: createApp(db).fetch, hostname: "127.0.0.1", port }, (info) =>
  console.log(`serving on http://127.0.0.1:${info.port} (API description: /docs)`),
);
// A request Node's HTTP parser refuses (an oversized header, a control byte) gets a problem document too.
answerClientErrors(server);
await stopOnSignal(server, { close: () => db.close() });
