/**
 * LISTEN on a dedicated node-postgres connection, kept open across
 * failures: the change feed's wake-up (docs/decisions/1337-change-feed.md).
 * A pooler in transaction mode (PgBouncer) cannot carry LISTEN, so the
 * connection may name the server directly while the pool goes through the
 * pooler (`PgExecutorOptions.listenConnectionString`).
 */
import pg from "pg";
import { quoteIdent } from "../sql/ident.js";
import type { Listening } from "./executor.js";

/** Longest pause between two attempts to reconnect, in milliseconds. */
const MAX_PAUSE_MS = 5000;

/**
 * Opens a connection to `connectionString`, runs `LISTEN channel` and calls
 * `onNotify` with each notification's payload. When the connection fails
 * it is opened again (100 ms, doubling to 5 s between attempts) and
 * `onNotify` is called once with no payload, since notifications sent
 * meanwhile are lost: the caller reads what it missed. Never rejects and
 * never throws asynchronously; `onError` is told about each failure.
 */
export function listenOnPg(
  connectionString: string,
  channel: string,
  onNotify: (payload?: string) => void,
  onError: (e: Error) => void = () => {},
): Listening {
  let closed = false;
  let client: pg.Client | undefined;
  let pause = 100;
  let timer: NodeJS.Timeout | undefined;

  const retry = (): void => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void open();
    }, pause);
    timer.unref();
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  };

  const open = async (): Promise<void> => {
    const c = new pg.Client({ connectionString });
    client = c;
    let failed = false;
    const fail = (e: Error): void => {
      if (failed) return;
      failed = true;
      onError(e);
      c.end().catch(() => {});
      if (client === c) client = undefined;
      retry();
    };
    c.on("error", fail);
    c.on("end", () => {
      if (!closed) fail(new Error("the LISTEN connection ended"));
    });
    c.on("notification", (n) => onNotify(n.payload));
    try {
      await c.connect();
      await c.query(`LISTEN ${quoteIdent(channel)}`);
      if (closed) {
        await c.end();
        return;
      }
      pause = 100;
      // Whatever was sent before this connection listened was missed.
      onNotify();
    } catch (e) {
      fail(e instanceof Error ? e : new Error(String(e)));
    }
  };

  void open();
  return {
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = undefined;
      if (c) await c.end().catch(() => {});
    },
  };
}
