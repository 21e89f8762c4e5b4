/**
 * The one-line reason a server could not listen, shared by `resc dev` and
 * `resc serve`; a module of its own so `resc serve` does not load the dev
 * command to print it (bench/COMPILER.md).
 */

/**
 * The one-line reason a server could not listen on 127.0.0.1:`port`.
 *
 * @param e the `error` event of the listening server (`EADDRINUSE`, `EACCES`, …)
 * @param port the TCP port asked for
 */
export function listenFailure(e: NodeJS.ErrnoException, port: number): string {
  if (e.code === "EADDRINUSE") return `port ${port} on 127.0.0.1 is already in use; choose another with --port`;
  if (e.code === "EACCES")
    return `port ${port} on 127.0.0.1 needs privileges this process does not have; choose another with --port`;
  return `cannot listen on 127.0.0.1:${port}: ${e.code ?? e.message}`;
}
