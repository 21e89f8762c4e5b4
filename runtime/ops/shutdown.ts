/**
 * Stopping a server on SIGINT or SIGTERM without losing a request: stop
 * accepting, let the requests in flight finish, then close what the server
 * used (the database, so the embedded one flushes its files). `resc dev`,
 * the project `resc init` writes and the tracker stop this way; `resc serve`
 * drains first, with /ready at 503 (docs/decisions/1252-graceful-drain.md).
 */
import process from "node:process";

/** A listening server, as `@hono/node-server`'s `serve` returns it. */
export interface ClosableServer {
  close(callback?: (err?: Error) => void): unknown;
}

/** Options of {@link stopOnSignal}. */
export interface StopOptions {
  /** Runs first, when the signal arrives (stop a file watcher, say). */
  beforeClose?: () => void;
  /** Runs once the server has closed: close the database here. */
  close?: () => Promise<unknown>;
  /** Longest wait for in-flight requests and `close`, in milliseconds; default no limit. */
  timeoutMs?: number;
}

/**
 * Waits for the first SIGINT or SIGTERM, then closes `server` and runs
 * `close`; any signal after the first is ignored. Resolves with `stopped` when both finished, or `timeout` when
 * they took longer than `timeoutMs`, if given (a connection held open, a
 * database that does not answer); the caller decides whether to exit. Never rejects:
 * a failing `close` is `stopped` too, since there is nothing left to do.
 */
export function stopOnSignal(server: ClosableServer, options: StopOptions = {}): Promise<"stopped" | "timeout"> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (): void => {
      // Later signals are ignored, never left to their default action (which
      // kills the process mid-close): `tsx` and `npm` relay the signal a
      // terminal already sent the whole process group, so one Ctrl-C arrives
      // twice. `timeoutMs` bounds the wait instead (test/tracker/start.test.ts).
      if (stopping) return;
      stopping = true;
      options.beforeClose?.();
      if (options.timeoutMs !== undefined) setTimeout(() => resolve("timeout"), options.timeoutMs).unref();
      server.close(() => {
        void Promise.resolve(options.close?.())
          .catch(() => undefined)
          .then(() => resolve("stopped"));
      });
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
