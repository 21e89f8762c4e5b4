/**
 * A TCP proxy the fault tests put between the service and PostgreSQL, so
 * an outage can be staged without touching the shared server (other
 * engineers' tests run against it). Three states:
 *
 * - `forward`: bytes flow both ways;
 * - `down`: the port is closed (new connections are refused) and every open
 *   connection is cut, as when the server or its host dies;
 * - `blackhole`: connections are accepted but nothing is passed on either
 *   way, as when a network path silently drops packets or the server
 *   stops answering; open connections go silent too.
 *
 * Going back to `forward` reopens the same port; connections that were
 * silenced are cut then (their protocol state is lost, as after a real
 * partition once the client gives up).
 */
import net from "node:net";

/** The state of the proxy; see the module comment. */
export type ProxyState = "forward" | "down" | "blackhole";

/** A running proxy. */
export interface TcpProxy {
  /** The local port clients connect to. */
  readonly port: number;
  /** The current state. */
  readonly state: ProxyState;
  /** Switches state; resolves once the port is open or closed accordingly. */
  set(state: ProxyState): Promise<void>;
  /** Connections currently open from clients. */
  readonly connections: number;
  /** Stops the proxy and cuts every connection. */
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  server?: net.Socket;
  silenced: boolean;
}

/**
 * Starts a proxy on an ephemeral port of 127.0.0.1 forwarding to
 * `host:port`.
 */
export async function startProxy(host: string, port: number): Promise<TcpProxy> {
  let state: ProxyState = "forward";
  const pairs = new Set<Pair>();
  const cut = (p: Pair): void => {
    p.client.destroy();
    p.server?.destroy();
    pairs.delete(p);
  };
  const server = net.createServer((client) => {
    const pair: Pair = { client, silenced: state === "blackhole" };
    pairs.add(pair);
    client.on("error", () => cut(pair));
    client.on("close", () => cut(pair));
    if (pair.silenced) return;
    const upstream = net.connect(port, host);
    pair.server = upstream;
    upstream.on("error", () => cut(pair));
    upstream.on("close", () => cut(pair));
    client.on("data", (d) => {
      if (!pair.silenced) upstream.write(d);
    });
    upstream.on("data", (d) => {
      if (!pair.silenced) client.write(d);
    });
  });
  const listen = (p: number): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(p, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  await listen(0);
  const own = (server.address() as net.AddressInfo).port;

  return {
    port: own,
    get state() {
      return state;
    },
    get connections() {
      return pairs.size;
    },
    async set(next: ProxyState): Promise<void> {
      if (next === state) return;
      if (next === "down") {
        const closed = stop();
        for (const p of [...pairs]) cut(p);
        await closed;
      } else if (next === "blackhole") {
        for (const p of pairs) p.silenced = true;
        if (!server.listening) await listen(own);
      } else {
        for (const p of [...pairs]) if (p.silenced) cut(p);
        if (!server.listening) await listen(own);
      }
      state = next;
    },
    async close(): Promise<void> {
      const closed = stop();
      for (const p of [...pairs]) cut(p);
      await closed;
    },
  };
}
