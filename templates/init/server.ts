import process from "node:process";
import { serve } from "@hono/node-server";
import { answerClientErrors, stopOnSignal } from "resc/ops";
import { mountsStopped } from "resc/runtime";
import { authentication, createApp, openDatabase } from "./app.js";

const { auth, notice } = authentication();
if (notice) console.log(notice);
const db = await openDatabase();
const port = Number(process.env.PORT ?? 3000);
const stopping = new AbortController();
const server = serve({ fetch: createApp(db, stopping.signal, auth).fetch, hostname: "127.0.0.1", port }, (info) =>
  console.log(`serving on http://127.0.0.1:${info.port} (API description: /docs)`),
);
// A request Node's HTTP parser refuses (an oversized header, a control byte) gets a problem document too.
answerClientErrors(server);
// Streams and webhook delivery end first, so the server can close; the database closes once they have stopped, so
// their last statements answer and the embedded one flushes.
await stopOnSignal(server, {
  beforeClose: () => stopping.abort(),
  close: async () => {
    await mountsStopped(stopping.signal);
    await db.close();
  },
});
