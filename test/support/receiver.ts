/**
 * A webhook receiver for a test: a real HTTP server on 127.0.0.1 that
 * keeps every request it is sent, parsed, and answers as the test says
 * (a status, or holding the request open). It listens on a port of its
 * own that stays the same across {@link Receiver.down} and
 * {@link Receiver.up}, so a test can take the receiver away (connection
 * refused) and bring it back at the address the service was given.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import { freePort } from "./ports.js";

/** One request the receiver got. */
export interface Delivery {
  /** The `webhook-id` header (Standard Webhooks). */
  id: string;
  headers: IncomingHttpHeaders;
  /** The body as sent. */
  body: string;
  /** The body's `type` (`<table>.<event>`). */
  type: string;
  /** The body's `data`: the row, or the key of a delete or leave. */
  data: any;
  /** The status it was answered, or undefined while it is held open. */
  status?: number;
}

/** What a test does with its receiver. */
export interface Receiver {
  /** `http://127.0.0.1:PORT/in` */
  url: string;
  /** Every request so far, in arrival order. */
  got: Delivery[];
  /** The requests held open while {@link hold} is on. */
  held: ServerResponse[];
  /** While on, requests are kept open unanswered (a receiver that hangs); off answers the next ones. */
  hold(on: boolean): void;
  /** Listens again on the same port (after {@link down}). */
  up(): Promise<void>;
  /** Stops listening and drops every connection: the service's next attempt is refused. */
  down(): Promise<void>;
  /** {@link down}, for `afterAll`. */
  close(): Promise<void>;
}

/**
 * Starts a receiver, listening at once.
 * @param answer the status for the n-th request (1-based); 200 by default
 */
export async function startReceiver(answer: (n: number, d: Delivery) => number = () => 200): Promise<Receiver> {
  const port = await freePort();
  const got: Delivery[] = [];
  const held: ServerResponse[] = [];
  let holding = false;
  let server: Server | undefined;
  const r: Receiver = {
    url: `http://127.0.0.1:${port}/in`,
    got,
    held,
    hold: (on) => (holding = on),
    up: () =>
      new Promise<void>((resolve, reject) => {
        server = createServer((req, res) => {
          let body = "";
          req.on("data", (c) => (body += c));
          req.on("end", () => {
            const parsed = JSON.parse(body) as { type: string; data: unknown };
            const d: Delivery = {
              id: String(req.headers["webhook-id"]),
              headers: req.headers,
              body,
              type: parsed.type,
              data: parsed.data,
            };
            got.push(d);
            if (holding) return void held.push(res);
            d.status = answer(got.length, d);
            res.writeHead(d.status).end();
          });
        });
        server.once("error", reject);
        server.listen(port, "127.0.0.1", () => resolve());
      }),
    down: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
        server = undefined;
      }),
    close: () => r.down(),
  };
  await r.up();
  return r;
}
