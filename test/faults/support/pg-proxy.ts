/**
 * A TCP proxy that speaks enough of the PostgreSQL wire protocol to inject
 * a server ErrorResponse at a chosen moment of a connection's life, then
 * close it, as a server does when it terminates a backend (57P01 after
 * `pg_terminate_backend` or a fast shutdown, 57P02 after another backend
 * crashed) or the link fails (08006). docs/decisions/0910-connection-faults.md.
 *
 * Only the server-to-client stream is framed (type byte, int32 length);
 * the client's bytes pass through untouched.
 */
import net from "node:net";

/**
 * Where the error is injected:
 * - `startup`: instead of the server's first message, before authentication completes;
 * - `after-ready`: in the same packet as the first ReadyForQuery of a new connection;
 * - `mid-query`: after the first message of the server's answer to a statement;
 * - `in-transaction`: after the first message of the server's answer to a
 *   statement sent inside an open transaction (ReadyForQuery status `T`);
 * - `commit`: the client's `COMMIT` reaches the server, which commits, and the
 *   link fails before any of the answer gets back (no ErrorResponse: the
 *   client sees the connection end; `code` is not used).
 */
export type InjectionPoint = "startup" | "after-ready" | "mid-query" | "in-transaction" | "commit";

/** A running protocol proxy. */
export interface PgFaultProxy {
  readonly port: number;
  /**
   * Arms an injection of a FATAL ErrorResponse with SQLSTATE `code` at
   * `point`, for the next `times` occasions (connections for `startup` and
   * `after-ready`, statements otherwise).
   */
  arm(point: InjectionPoint, code: string, times?: number): void;
  /** Cancels an armed injection. */
  disarm(): void;
  /** Injections made so far. */
  readonly injected: number;
  /** Stops the proxy and cuts every connection. */
  close(): Promise<void>;
}

const MESSAGES: Record<string, string> = {
  "57P01": "terminating connection due to administrator command",
  "57P02": "terminating connection because of crash of another server process",
  "08006": "connection failure",
};

/** A FATAL ErrorResponse ('E') message with severity, code and message fields. */
export function errorResponse(code: string): Buffer {
  const fields = [
    ["S", "FATAL"],
    ["V", "FATAL"],
    ["C", code],
    ["M", MESSAGES[code] ?? "injected fault"],
  ];
  const body = Buffer.concat([
    ...fields.map(([k, v]) => Buffer.concat([Buffer.from(k, "ascii"), Buffer.from(v, "utf8"), Buffer.from([0])])),
    Buffer.from([0]),
  ]);
  const head = Buffer.alloc(5);
  head.write("E", 0, "ascii");
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

interface Armed {
  point: InjectionPoint;
  code: string;
  times: number;
}

/** Starts a proxy on an ephemeral port of 127.0.0.1 forwarding to `host:port`. */
export async function startPgFaultProxy(host: string, port: number): Promise<PgFaultProxy> {
  let armed: Armed | undefined;
  let injected = 0;
  const sockets = new Set<net.Socket>();

  /** Takes one occasion of the armed injection at `point`, if any. */
  const take = (point: InjectionPoint): string | undefined => {
    if (!armed || armed.point !== point || armed.times <= 0) return undefined;
    armed.times--;
    injected++;
    const code = armed.code;
    if (armed.times === 0) armed = undefined;
    return code;
  };

  const server = net.createServer((client) => {
    sockets.add(client);
    const upstream = net.connect(port, host);
    sockets.add(upstream);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on("error", cut).on("close", cut);
    upstream.on("error", cut).on("close", cut);
    // Only a COMMIT is looked for in the client's bytes: a simple Query message ('Q') whose text is COMMIT.
    let commitLost = false;
    client.on("data", (d: Buffer) => {
      if (d[0] === 0x51 && d.subarray(5).toString("utf8").replace(/\0$/, "").trim().toUpperCase() === "COMMIT")
        commitLost = take("commit") !== undefined;
      upstream.write(d);
    });

    // Per-connection protocol state.
    const connectionFault = take("startup") ?? undefined;
    const readyFault = connectionFault ? undefined : take("after-ready");
    let ready = false;
    let inTransaction = false;
    let answering = false;
    let pending = Buffer.alloc(0);
    let dead = false;
    const die = (out: Buffer[], code: string): void => {
      dead = true;
      out.push(errorResponse(code));
      client.end(Buffer.concat(out));
      upstream.destroy();
    };

    upstream.on("data", (d: Buffer) => {
      if (dead) return;
      if (commitLost) {
        dead = true;
        client.destroy();
        upstream.destroy();
        return;
      }
      pending = Buffer.concat([pending, d]);
      const out: Buffer[] = [];
      while (pending.length >= 5) {
        const len = pending.readInt32BE(1);
        if (pending.length < len + 1) break;
        const msg = pending.subarray(0, len + 1);
        pending = pending.subarray(len + 1);
        const type = String.fromCharCode(msg[0]);
        if (connectionFault) return die(out, connectionFault);
        out.push(msg);
        if (type === "Z") {
          const status = String.fromCharCode(msg[5]);
          const first = !ready;
          ready = true;
          answering = false;
          inTransaction = status === "T" || status === "E";
          if (first && readyFault) return die(out, readyFault);
          continue;
        }
        if (ready && !answering) {
          answering = true;
          const code = (inTransaction ? take("in-transaction") : undefined) ?? take("mid-query");
          if (code) return die(out, code);
        }
      }
      if (out.length > 0) client.write(Buffer.concat(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const own = (server.address() as net.AddressInfo).port;
  return {
    port: own,
    arm(point, code, times = 1) {
      armed = { point, code, times };
    },
    disarm() {
      armed = undefined;
    },
    get injected() {
      return injected;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
