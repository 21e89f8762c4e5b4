/**
 * `npm start`: serves the task tracker on http://127.0.0.1:$PORT (default
 * 3000) with the embedded database in `.resc/tracker`, or on
 * `DATABASE_URL`. One log line per request. Settings: `config.ts`.
 */
import { serve } from "@hono/node-server";
import { mountsStopped } from "resc/runtime";
import { answerClientErrors, stopOnSignal } from "resc/ops";
import { createTrackerApp } from "./app.js";
import { readConfig } from "./config.js";
import { openDatabase } from "./database.js";
import { service } from "./generated/tracker/index.js";

const say = (line: string): void => console.log(`tracker: ${line}`);

async function main(): Promise<void> {
  const config = readConfig(process.env, process.argv.slice(2), process.cwd());
  if (config.developmentSecret) {
    say("TRACKER_JWT_SECRET is not set: tokens are signed with the built-in DEVELOPMENT secret (never deploy this)");
  }
  const db = await openDatabase(config, service, say);
  let app: ReturnType<typeof createTrackerApp>;
  const stopping = new AbortController();
  try {
    app = createTrackerApp({
      db,
      jwtSecret: config.jwtSecret,
      log: (line) => console.log(line),
      signal: stopping.signal,
    });
  } catch (e) {
    await db.close();
    throw e;
  }
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: config.port }, (info) => {
    const url = `http://127.0.0.1:${info.port}`;
    say(`serving ${service.title} ${service.version} at ${url}`);
    say(
      `sign in: curl -s -X POST ${url}/auth/login -H 'content-type: application/json' ` +
        `-d '{"email":"ada@acme.test","password":"demo-password"}'`,
    );
  });
  // A request Node's HTTP parser refuses is answered with a problem document too.
  answerClientErrors(server);
  // Close the listener, then the database, so the embedded one flushes its files.
  // Generous: the embedded database flushes its files on close, which a busy machine makes slow.
  const how = await stopOnSignal(server, {
    beforeClose: () => stopping.abort(),
    // The change feed stops before the database closes, so its last statements do not fail.
    close: async () => {
      await mountsStopped(stopping.signal);
      await db.close();
    },
    timeoutMs: 15000,
  });
  say(how === "stopped" ? "stopped" : "stopped before every request finished");
  process.exit(how === "stopped" ? 0 : 1);
}

main().catch((e: unknown) => {
  console.error(`tracker: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
